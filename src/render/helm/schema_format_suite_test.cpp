#include <catch2/catch.hpp>
#include <string_view>

#include "src/render/helm/schema_format.hpp"

// The string cases of JSON-Schema-Test-Suite's tests/draft2020-12/optional/format/*.json at
// 9fc880bf (the commit jsonschema v6 pins as its testdata submodule), for every format v6
// knows there; v6's suite_test.go runs them with AssertFormat and skips only idn-* and
// ecmascript-regex. Generated once from the JSON files; the comment is the case's description.
namespace {

struct SuiteCase {
  std::string_view format, data;
  bool valid;
};

const SuiteCase k_suite[] = {
    {"date-time", "1963-06-19T08:30:06.283185Z", true},  // a valid date-time string
    {"date-time", "1963-06-19T08:30:06Z",
     true},  // a valid date-time string without second fraction
    {"date-time", "1937-01-01T12:00:27.87+00:20",
     true},  // a valid date-time string with plus offset
    {"date-time", "1990-12-31T15:59:50.123-08:00",
     true},                                       // a valid date-time string with minus offset
    {"date-time", "1998-12-31T23:59:60Z", true},  // a valid date-time with a leap second, UTC
    {"date-time", "1998-12-31T15:59:60.123-08:00",
     true},  // a valid date-time with a leap second, with minus offset
    {"date-time", "1998-12-31T23:59:61Z", false},  // an invalid date-time past leap second, UTC
    {"date-time", "1998-12-31T23:58:60Z",
     false},  // an invalid date-time with leap second on a wrong minute, UTC
    {"date-time", "1998-12-31T22:59:60Z",
     false},  // an invalid date-time with leap second on a wrong hour, UTC
    {"date-time", "1990-02-31T15:59:59.123-08:00", false},  // an invalid day in date-time string
    {"date-time", "1990-12-31T15:59:59-24:00", false},      // an invalid offset in date-time string
    {"date-time", "1963-06-19T08:30:06.28123+01:00Z",
     false},                                          // an invalid closing Z after time-zone offset
    {"date-time", "06/19/1963 08:30:06 PST", false},  // an invalid date-time string
    {"date-time", "1963-06-19t08:30:06.283185z", true},  // case-insensitive T and Z
    {"date-time", "2013-350T01:01:01", false},  // only RFC3339 not all of ISO 8601 are valid
    {"date-time", "1963-6-19T08:30:06.283185Z", false},  // invalid non-padded month dates
    {"date-time", "1963-06-1T08:30:06.283185Z", false},  // invalid non-padded day dates
    {"date-time",
     "1963-06-1\xe0"
     "\xa7"
     "\xaa"
     "T00:00:00Z",
     false},  // invalid non-ASCII '৪' (a Bengali 4) in date portion
    {"date-time",
     "1963-06-11T0\xe0"
     "\xa7"
     "\xaa"
     ":00:00Z",
     false},                        // invalid non-ASCII '৪' (a Bengali 4) in time portion
    {"date", "1963-06-19", true},   // a valid date string
    {"date", "2020-01-31", true},   // a valid date string with 31 days in January
    {"date", "2020-01-32", false},  // a invalid date string with 32 days in January
    {"date", "2021-02-28", true},   // a valid date string with 28 days in February (normal)
    {"date", "2021-02-29", false},  // a invalid date string with 29 days in February (normal)
    {"date", "2020-02-29", true},   // a valid date string with 29 days in February (leap)
    {"date", "2020-02-30", false},  // a invalid date string with 30 days in February (leap)
    {"date", "2020-03-31", true},   // a valid date string with 31 days in March
    {"date", "2020-03-32", false},  // a invalid date string with 32 days in March
    {"date", "2020-04-30", true},   // a valid date string with 30 days in April
    {"date", "2020-04-31", false},  // a invalid date string with 31 days in April
    {"date", "2020-05-31", true},   // a valid date string with 31 days in May
    {"date", "2020-05-32", false},  // a invalid date string with 32 days in May
    {"date", "2020-06-30", true},   // a valid date string with 30 days in June
    {"date", "2020-06-31", false},  // a invalid date string with 31 days in June
    {"date", "2020-07-31", true},   // a valid date string with 31 days in July
    {"date", "2020-07-32", false},  // a invalid date string with 32 days in July
    {"date", "2020-08-31", true},   // a valid date string with 31 days in August
    {"date", "2020-08-32", false},  // a invalid date string with 32 days in August
    {"date", "2020-09-30", true},   // a valid date string with 30 days in September
    {"date", "2020-09-31", false},  // a invalid date string with 31 days in September
    {"date", "2020-10-31", true},   // a valid date string with 31 days in October
    {"date", "2020-10-32", false},  // a invalid date string with 32 days in October
    {"date", "2020-11-30", true},   // a valid date string with 30 days in November
    {"date", "2020-11-31", false},  // a invalid date string with 31 days in November
    {"date", "2020-12-31", true},   // a valid date string with 31 days in December
    {"date", "2020-12-32", false},  // a invalid date string with 32 days in December
    {"date", "2020-13-01", false},  // a invalid date string with invalid month
    {"date", "06/19/1963", false},  // an invalid date string
    {"date", "2013-350", false},    // only RFC3339 not all of ISO 8601 are valid
    {"date", "1998-1-20", false},   // non-padded month dates are not valid
    {"date", "1998-01-1", false},   // non-padded day dates are not valid
    {"date", "1998-13-01", false},  // invalid month
    {"date", "1998-04-31", false},  // invalid month-day combination
    {"date", "2021-02-29", false},  // 2021 is not a leap year
    {"date", "2020-02-29", true},   // 2020 is a leap year
    {"date",
     "1963-06-1\xe0"
     "\xa7"
     "\xaa"
     "",
     false},                        // invalid non-ASCII '৪' (a Bengali 4)
    {"date", "20230328", false},    // ISO8601 / non-RFC3339: YYYYMMDD without dashes (2023-03-28)
    {"date", "2023-W01", false},    // ISO8601 / non-RFC3339: week number implicit day of week (202
    {"date", "2023-W13-2", false},  // ISO8601 / non-RFC3339: week number with day of week (2023-03
    {"date", "2022W527", false},    // ISO8601 / non-RFC3339: week number rollover to next year (20
    {"duration", "P4DT12H30M5S", true},  // a valid duration string
    {"duration", "PT1D", false},         // an invalid duration string
    {"duration", "P", false},            // no elements present
    {"duration", "P1YT", false},         // no time elements present
    {"duration", "PT", false},           // no date or time elements present
    {"duration", "P2D1Y", false},        // elements out of order
    {"duration", "P1D2H", false},        // missing time separator
    {"duration", "P2S", false},          // time element in the date position
    {"duration", "P4Y", true},           // four years duration
    {"duration", "PT0S", true},          // zero time, in seconds
    {"duration", "P0D", true},           // zero time, in days
    {"duration", "P1M", true},           // one month duration
    {"duration", "PT1M", true},          // one minute duration
    {"duration", "PT36H", true},         // one and a half days, in hours
    {"duration", "P1DT12H", true},       // one and a half days, in days and hours
    {"duration", "P2W", true},           // two weeks
    {"duration", "P1Y2W", false},        // weeks cannot be combined with other units
    {"duration",
     "P\xe0"
     "\xa7"
     "\xa8"
     "Y",
     false},                                    // invalid non-ASCII '২' (a Bengali 2)
    {"duration", "P1", false},                  // element without unit
    {"email", "joe.bloggs@example.com", true},  // a valid e-mail address
    {"email", "2962", false},                   // an invalid e-mail address
    {"email", "te~st@example.com", true},       // tilde in local part is valid
    {"email", "~test@example.com", true},       // tilde before local part is valid
    {"email", "test~@example.com", true},       // tilde after local part is valid
    {"email", "\"joe bloggs\"@example.com",
     true},  // a quoted string with a space in the local part is valid
    {"email", "\"joe..bloggs\"@example.com",
     true},  // a quoted string with a double dot in the local part is valid
    {"email", "\"joe@bloggs\"@example.com",
     true},  // a quoted string with a @ in the local part is valid
    {"email", "joe.bloggs@[127.0.0.1]", true},  // an IPv4-address-literal after the @ is valid
    {"email", "joe.bloggs@[IPv6:::1]", true},   // an IPv6-address-literal after the @ is valid
    {"email", ".test@example.com", false},      // dot before local part is not valid
    {"email", "test.@example.com", false},      // dot after local part is not valid
    {"email", "te.s.t@example.com", true},      // two separated dots inside local part are valid
    {"email", "te..st@example.com", false},  // two subsequent dots inside local part are not valid
    {"email", "joe.bloggs@invalid=domain.com", false},  // an invalid domain
    {"email", "joe.bloggs@[127.0.0.300]", false},       // an invalid IPv4-address-literal
    {"hostname", "www.example.com", true},              // a valid host name
    {"hostname", "xn--4gbwdl.xn--wgbh1c", true},        // a valid punycoded IDN hostname
    {"hostname", "-a-host-name-that-starts-with--",
     false},                                       // a host name starting with an illegal character
    {"hostname", "not_a_valid_host_name", false},  // a host name containing illegal characters
    {"hostname",
     "a-vvvvvvvvvvvvvvvveeeeeeeeeeeeeeeerrrrrrrrrrrrrrrryyyyyyyyyyyyyyyy-long-host-name-component",
     false},                           // a host name with a component too long
    {"hostname", "-hostname", false},  // starts with hyphen
    {"hostname", "hostname-", false},  // ends with hyphen
    {"hostname", "_hostname", false},  // starts with underscore
    {"hostname", "hostname_", false},  // ends with underscore
    {"hostname", "host_name", false},  // contains underscore
    {"hostname", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk.com",
     true},  // maximum label length
    {"hostname", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl.com",
     false},                             // exceeds maximum label length
    {"hostname", "hostname", true},      // single label
    {"hostname", "host-name", true},     // single label with hyphen
    {"hostname", "h0stn4me", true},      // single label with digits
    {"hostname", "1host", true},         // single label starting with digit
    {"hostname", "hostnam3", true},      // single label ending with digit
    {"ipv4", "192.168.0.1", true},       // a valid IP address
    {"ipv4", "127.0.0.0.1", false},      // an IP address with too many components
    {"ipv4", "256.256.256.256", false},  // an IP address with out-of-range values
    {"ipv4", "127.0", false},            // an IP address without 4 components
    {"ipv4", "0x7f000001", false},       // an IP address as an integer
    {"ipv4", "2130706433", false},       // an IP address as an integer (decimal)
    {"ipv4", "087.10.0.1", false},       // invalid leading zeroes, as they are treated as octals
    {"ipv4", "87.10.0.1", true},         // value without leading zero is valid
    {"ipv4",
     "1\xe0"
     "\xa7"
     "\xa8"
     "7.0.0.1",
     false},                                             // invalid non-ASCII '২' (a Bengali 2)
    {"ipv4", "192.168.1.0/24", false},                   // netmask is not a part of ipv4 address
    {"ipv6", "::1", true},                               // a valid IPv6 address
    {"ipv6", "12345::", false},                          // an IPv6 address with out-of-range values
    {"ipv6", "::abef", true},                            // trailing 4 hex symbols is valid
    {"ipv6", "::abcef", false},                          // trailing 5 hex symbols is invalid
    {"ipv6", "1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1", false},  // an IPv6 address with too many components
    {"ipv6", "::laptop", false},          // an IPv6 address containing illegal characters
    {"ipv6", "::", true},                 // no digits is valid
    {"ipv6", "::42:ff:1", true},          // leading colons is valid
    {"ipv6", "d6::", true},               // trailing colons is valid
    {"ipv6", ":2:3:4:5:6:7:8", false},    // missing leading octet is invalid
    {"ipv6", "1:2:3:4:5:6:7:", false},    // missing trailing octet is invalid
    {"ipv6", ":2:3:4::8", false},         // missing leading octet with omitted octets later
    {"ipv6", "1:d6::42", true},           // single set of double colons in the middle is valid
    {"ipv6", "1::d6::42", false},         // two sets of double colons is invalid
    {"ipv6", "1::d6:192.168.0.1", true},  // mixed format with the ipv4 section as decimal octets
    {"ipv6", "1:2::192.168.0.1", true},   // mixed format with double colons between the sections
    {"ipv6", "1::2:192.168.256.1",
     false},                               // mixed format with ipv4 section with octet out of range
    {"ipv6", "1::2:192.168.ff.1", false},  // mixed format with ipv4 section with a hex octet
    {"ipv6", "::ffff:192.168.0.1",
     true},  // mixed format with leading double colons (ipv4-mapped ipv6 ad
    {"ipv6", "1:2:3:4:5:::8", false},   // triple colons is invalid
    {"ipv6", "1:2:3:4:5:6:7:8", true},  // 8 octets
    {"ipv6", "1:2:3:4:5:6:7", false},   // insufficient octets without double colons
    {"ipv6", "1", false},               // no colons is invalid
    {"ipv6", "127.0.0.1", false},       // ipv4 is not ipv6
    {"ipv6", "1:2:3:4:1.2.3", false},   // ipv4 segment must have 4 octets
    {"ipv6", "  ::1", false},           // leading whitespace is invalid
    {"ipv6", "::1  ", false},           // trailing whitespace is invalid
    {"ipv6", "fe80::/64", false},       // netmask is not a part of ipv6 address
    {"ipv6", "fe80::a%eth1", false},    // zone id is not a part of ipv6 address
    {"ipv6", "1000:1000:1000:1000:1000:1000:255.255.255.255", true},  // a long valid ipv6
    {"ipv6", "100:100:100:100:100:100:255.255.255.255.255",
     false},  // a long invalid ipv6, below length limit, first
    {"ipv6", "100:100:100:100:100:100:100:255.255.255.255",
     false},  // a long invalid ipv6, below length limit, second
    {"ipv6",
     "1:2:3:4:5:6:7:\xe0"
     "\xa7"
     "\xaa"
     "",
     false},  // invalid non-ASCII '৪' (a Bengali 4)
    {"ipv6",
     "1:2::192.16\xe0"
     "\xa7"
     "\xaa"
     ".0.1",
     false},  // invalid non-ASCII '৪' (a Bengali 4) in the IPv4 portion
    {"iri-reference",
     "http://\xc6"
     "\x92"
     "\xc3"
     "\xb8"
     "\xc3"
     "\xb8"
     ".\xc3"
     "\x9f"
     "\xc3"
     "\xa5"
     "r/\?\xe2"
     "\x88"
     "\x82"
     "\xc3"
     "\xa9"
     "\xc5"
     "\x93"
     "=\xcf"
     "\x80"
     "\xc3"
     "\xae"
     "x#\xcf"
     "\x80"
     "\xc3"
     "\xae"
     "\xc3"
     "\xbc"
     "x",
     true},  // a valid IRI
    {"iri-reference",
     "//\xc6"
     "\x92"
     "\xc3"
     "\xb8"
     "\xc3"
     "\xb8"
     ".\xc3"
     "\x9f"
     "\xc3"
     "\xa5"
     "r/\?\xe2"
     "\x88"
     "\x82"
     "\xc3"
     "\xa9"
     "\xc5"
     "\x93"
     "=\xcf"
     "\x80"
     "\xc3"
     "\xae"
     "x#\xcf"
     "\x80"
     "\xc3"
     "\xae"
     "\xc3"
     "\xbc"
     "x",
     true},  // a valid protocol-relative IRI Reference
    {"iri-reference",
     "/\xc3"
     "\xa2"
     "\xcf"
     "\x80"
     "\xcf"
     "\x80"
     "",
     true},  // a valid relative IRI Reference
    {"iri-reference",
     "\\\\WINDOWS\\fil\xc3"
     "\xab"
     "\xc3"
     "\x9f"
     "\xc3"
     "\xa5"
     "r\xc3"
     "\xa9"
     "",
     false},  // an invalid IRI Reference
    {"iri-reference",
     "\xc3"
     "\xa2"
     "\xcf"
     "\x80"
     "\xcf"
     "\x80"
     "",
     true},  // a valid IRI Reference
    {"iri-reference",
     "#\xc6"
     "\x92"
     "r\xc3"
     "\xa4"
     "gm\xc3"
     "\xaa"
     "nt",
     true},  // a valid IRI fragment
    {"iri-reference",
     "#\xc6"
     "\x92"
     "r\xc3"
     "\xa4"
     "g\\m\xc3"
     "\xaa"
     "nt",
     false},  // an invalid IRI fragment
    {"iri",
     "http://\xc6"
     "\x92"
     "\xc3"
     "\xb8"
     "\xc3"
     "\xb8"
     ".\xc3"
     "\x9f"
     "\xc3"
     "\xa5"
     "r/\?\xe2"
     "\x88"
     "\x82"
     "\xc3"
     "\xa9"
     "\xc5"
     "\x93"
     "=\xcf"
     "\x80"
     "\xc3"
     "\xae"
     "x#\xcf"
     "\x80"
     "\xc3"
     "\xae"
     "\xc3"
     "\xbc"
     "x",
     true},  // a valid IRI with anchor tag
    {"iri",
     "http://\xc6"
     "\x92"
     "\xc3"
     "\xb8"
     "\xc3"
     "\xb8"
     ".com/blah_(w\xc3"
     "\xae"
     "k\xc3"
     "\xaf"
     "p\xc3"
     "\xa9"
     "di\xc3"
     "\xa5"
     ")_blah#\xc3"
     "\x9f"
     "it\xc3"
     "\xa9"
     "-1",
     true},  // a valid IRI with anchor tag and parentheses
    {"iri",
     "http://\xc6"
     "\x92"
     "\xc3"
     "\xb8"
     "\xc3"
     "\xb8"
     ".\xc3"
     "\x9f"
     "\xc3"
     "\xa5"
     "r/\?q=Test%20URL-encoded%20stuff",
     true},  // a valid IRI with URL-encoded stuff
    {"iri", "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
     true},  // a valid IRI with many special characters
    {"iri", "http://[2001:0db8:85a3:0000:0000:8a2e:0370:7334]", true},  // a valid IRI based on IPv6
    {"iri", "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334",
     false},                 // an invalid IRI based on IPv6
    {"iri", "/abc", false},  // an invalid relative IRI Reference
    {"iri",
     "\\\\WINDOWS\\fil\xc3"
     "\xab"
     "\xc3"
     "\x9f"
     "\xc3"
     "\xa5"
     "r\xc3"
     "\xa9"
     "",
     false},  // an invalid IRI
    {"iri",
     "\xc3"
     "\xa2"
     "\xcf"
     "\x80"
     "\xcf"
     "\x80"
     "",
     false},                                        // an invalid IRI though valid IRI reference
    {"json-pointer", "/foo/bar~0/baz~1/%a", true},  // a valid JSON-pointer
    {"json-pointer", "/foo/bar~", false},           // not a valid JSON-pointer (~ not escaped)
    {"json-pointer", "/foo//bar", true},            // valid JSON-pointer with empty segment
    {"json-pointer", "/foo/bar/", true},  // valid JSON-pointer with the last empty segment
    {"json-pointer", "", true},           // valid JSON-pointer as stated in RFC 6901 #1
    {"json-pointer", "/foo", true},       // valid JSON-pointer as stated in RFC 6901 #2
    {"json-pointer", "/foo/0", true},     // valid JSON-pointer as stated in RFC 6901 #3
    {"json-pointer", "/", true},          // valid JSON-pointer as stated in RFC 6901 #4
    {"json-pointer", "/a~1b", true},      // valid JSON-pointer as stated in RFC 6901 #5
    {"json-pointer", "/c%d", true},       // valid JSON-pointer as stated in RFC 6901 #6
    {"json-pointer", "/e^f", true},       // valid JSON-pointer as stated in RFC 6901 #7
    {"json-pointer", "/g|h", true},       // valid JSON-pointer as stated in RFC 6901 #8
    {"json-pointer", "/i\\j", true},      // valid JSON-pointer as stated in RFC 6901 #9
    {"json-pointer", "/k\"l", true},      // valid JSON-pointer as stated in RFC 6901 #10
    {"json-pointer", "/ ", true},         // valid JSON-pointer as stated in RFC 6901 #11
    {"json-pointer", "/m~0n", true},      // valid JSON-pointer as stated in RFC 6901 #12
    {"json-pointer", "/foo/-", true},  // valid JSON-pointer used adding to the last array position
    {"json-pointer", "/foo/-/bar", true},   // valid JSON-pointer (- used as object member name)
    {"json-pointer", "/~1~0~0~1~1", true},  // valid JSON-pointer (multiple escaped characters)
    {"json-pointer", "/~1.1", true},        // valid JSON-pointer (escaped with fraction part) #1
    {"json-pointer", "/~0.1", true},        // valid JSON-pointer (escaped with fraction part) #2
    {"json-pointer", "#", false},           // not a valid JSON-pointer (URI Fragment Identifier) #1
    {"json-pointer", "#/", false},          // not a valid JSON-pointer (URI Fragment Identifier) #2
    {"json-pointer", "#a", false},          // not a valid JSON-pointer (URI Fragment Identifier) #3
    {"json-pointer", "/~0~", false},   // not a valid JSON-pointer (some escaped, but not all) #1
    {"json-pointer", "/~0/~", false},  // not a valid JSON-pointer (some escaped, but not all) #2
    {"json-pointer", "/~2", false},    // not a valid JSON-pointer (wrong escape character) #1
    {"json-pointer", "/~-1", false},   // not a valid JSON-pointer (wrong escape character) #2
    {"json-pointer", "/~~", false},    // not a valid JSON-pointer (multiple characters not escaped)
    {"json-pointer", "a", false},    // not a valid JSON-pointer (isn't empty nor starts with /) #1
    {"json-pointer", "0", false},    // not a valid JSON-pointer (isn't empty nor starts with /) #2
    {"json-pointer", "a/a", false},  // not a valid JSON-pointer (isn't empty nor starts with /) #3
    {"regex", "([abc])+\\s+$", true},      // a valid regular expression
    {"regex", "^(abc]", false},            // a regular expression with unclosed parens is invalid
    {"relative-json-pointer", "1", true},  // a valid upwards RJP
    {"relative-json-pointer", "0/foo/bar", true},  // a valid downwards RJP
    {"relative-json-pointer", "2/0/baz/1/zip",
     true},                                        // a valid up and then down RJP, with array index
    {"relative-json-pointer", "0#", true},         // a valid RJP taking the member or index name
    {"relative-json-pointer", "/foo/bar", false},  // an invalid RJP that is a valid JSON Pointer
    {"relative-json-pointer", "-1/foo/bar", false},  // negative prefix
    {"relative-json-pointer", "+1/foo/bar", false},  // explicit positive prefix
    {"relative-json-pointer", "0##", false},         // ## is not a valid json-pointer
    {"relative-json-pointer", "01/a",
     false},  // zero cannot be followed by other digits, plus json-pointer
    {"relative-json-pointer", "01#",
     false},  // zero cannot be followed by other digits, plus octothorpe
    {"relative-json-pointer", "", false},            // empty string
    {"relative-json-pointer", "120/foo/bar", true},  // multi-digit integer prefix
    {"time", "08:30:06Z", true},                     // a valid time string
    {"time", "008:030:006Z", false},                 // invalid time string with extra leading zeros
    {"time", "8:3:6Z", false},          // invalid time string with no leading zero for single digit
    {"time", "8:0030:6Z", false},       // hour, minute, second must be two digits
    {"time", "23:59:60Z", true},        // a valid time string with leap second, Zulu
    {"time", "22:59:60Z", false},       // invalid leap second, Zulu (wrong hour)
    {"time", "23:58:60Z", false},       // invalid leap second, Zulu (wrong minute)
    {"time", "23:59:60+00:00", true},   // valid leap second, zero time-offset
    {"time", "22:59:60+00:00", false},  // invalid leap second, zero time-offset (wrong hour)
    {"time", "23:58:60+00:00", false},  // invalid leap second, zero time-offset (wrong minute)
    {"time", "01:29:60+01:30", true},   // valid leap second, positive time-offset
    {"time", "23:29:60+23:30", true},   // valid leap second, large positive time-offset
    {"time", "23:59:60+01:00", false},  // invalid leap second, positive time-offset (wrong hour)
    {"time", "23:59:60+00:30", false},  // invalid leap second, positive time-offset (wrong minute)
    {"time", "15:59:60-08:00", true},   // valid leap second, negative time-offset
    {"time", "00:29:60-23:30", true},   // valid leap second, large negative time-offset
    {"time", "23:59:60-01:00", false},  // invalid leap second, negative time-offset (wrong hour)
    {"time", "23:59:60-00:30", false},  // invalid leap second, negative time-offset (wrong minute)
    {"time", "23:20:50.52Z", true},     // a valid time string with second fraction
    {"time", "08:30:06.283185Z", true},  // a valid time string with precise second fraction
    {"time", "08:30:06+00:20", true},    // a valid time string with plus offset
    {"time", "08:30:06-08:00", true},    // a valid time string with minus offset
    {"time", "08:30:06-8:000", false},   // hour, minute in time-offset must be two digits
    {"time", "08:30:06z", true},         // a valid time string with case-insensitive Z
    {"time", "24:00:00Z", false},        // an invalid time string with invalid hour
    {"time", "00:60:00Z", false},        // an invalid time string with invalid minute
    {"time", "00:00:61Z", false},        // an invalid time string with invalid second
    {"time", "22:59:60Z", false},  // an invalid time string with invalid leap second (wrong hour)
    {"time", "23:58:60Z", false},  // an invalid time string with invalid leap second (wrong minut
    {"time", "01:02:03+24:00", false},  // an invalid time string with invalid time numoffset hour
    {"time", "01:02:03+00:60", false},  // an invalid time string with invalid time numoffset minute
    {"time", "01:02:03Z+00:30",
     false},  // an invalid time string with invalid time with both Z and num
    {"time", "08:30:06 PST", false},   // an invalid offset indicator
    {"time", "01:01:01,1111", false},  // only RFC3339 not all of ISO 8601 are valid
    {"time", "12:00:00", false},       // no time offset
    {"time", "12:00:00.52", false},    // no time offset with second fraction
    {"time",
     "1\xe0"
     "\xa7"
     "\xa8"
     ":00:00Z",
     false},                            // invalid non-ASCII '২' (a Bengali 2)
    {"time", "08:30:06#00:20", false},  // offset not starting with plus or minus
    {"time", "ab:cd:ef", false},        // contains letters
    {"uri-reference", "http://foo.bar/\?baz=qux#quux", true},  // a valid URI
    {"uri-reference", "//foo.bar/\?baz=qux#quux", true},  // a valid protocol-relative URI Reference
    {"uri-reference", "/abc", true},                      // a valid relative URI Reference
    {"uri-reference", "\\\\WINDOWS\\fileshare", false},   // an invalid URI Reference
    {"uri-reference", "abc", true},                       // a valid URI Reference
    {"uri-reference", "#fragment", true},                 // a valid URI fragment
    {"uri-reference", "#frag\\ment", false},              // an invalid URI fragment
    {"uri-template", "http://example.com/dictionary/{term:1}/{term}",
     true},  // a valid uri-template
    {"uri-template", "http://example.com/dictionary/{term:1}/{term",
     false},  // an invalid uri-template
    {"uri-template", "http://example.com/dictionary",
     true},                                                // a valid uri-template without variables
    {"uri-template", "dictionary/{term:1}/{term}", true},  // a valid relative uri-template
    {"uri", "http://foo.bar/\?baz=qux#quux", true},        // a valid URL with anchor tag
    {"uri", "http://foo.com/blah_(wikipedia)_blah#cite-1",
     true},  // a valid URL with anchor tag and parentheses
    {"uri", "http://foo.bar/\?q=Test%20URL-encoded%20stuff",
     true},                                         // a valid URL with URL-encoded stuff
    {"uri", "http://xn--nw2a.xn--j6w193g/", true},  // a valid puny-coded URL
    {"uri", "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
     true},                                   // a valid URL with many special characters
    {"uri", "http://223.255.255.254", true},  // a valid URL based on IPv4
    {"uri", "ftp://ftp.is.co.za/rfc/rfc1808.txt", true},   // a valid URL with ftp scheme
    {"uri", "http://www.ietf.org/rfc/rfc2396.txt", true},  // a valid URL for a simple text file
    {"uri", "ldap://[2001:db8::7]/c=GB\?objectClass\?one", true},          // a valid URL
    {"uri", "mailto:John.Doe@example.com", true},                          // a valid mailto URI
    {"uri", "news:comp.infosystems.www.servers.unix", true},               // a valid newsgroup URI
    {"uri", "tel:+1-816-555-1212", true},                                  // a valid tel URI
    {"uri", "urn:oasis:names:specification:docbook:dtd:xml:4.1.2", true},  // a valid URN
    {"uri", "//foo.bar/\?baz=qux#quux", false},  // an invalid protocol-relative URI Reference
    {"uri", "/abc", false},                      // an invalid relative URI Reference
    {"uri", "\\\\WINDOWS\\fileshare", false},    // an invalid URI
    {"uri", "abc", false},                       // an invalid URI though valid URI reference
    {"uri", "http:// shouldfail.com", false},    // an invalid URI with spaces
    {"uri", ":// should fail", false},           // an invalid URI with spaces and missing scheme
    {"uri", "bar,baz:foo", false},               // an invalid URI with comma in scheme
    {"uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380", true},    // all upper-case
    {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", true},    // all lower-case
    {"uuid", "2eb8aa08-AA98-11ea-B4Aa-73B441D16380", true},    // mixed case
    {"uuid", "00000000-0000-0000-0000-000000000000", true},    // all zeroes is valid
    {"uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638", false},    // wrong length
    {"uuid", "2eb8aa08-aa98-11ea-73b441d16380", false},        // missing section
    {"uuid", "2eb8aa08-aa98-11ea-b4ga-73b441d16380", false},   // bad characters (not hex)
    {"uuid", "2eb8aa08aa9811eab4aa73b441d16380", false},       // no dashes
    {"uuid", "2eb8aa08aa98-11ea-b4aa73b441d16380", false},     // too few dashes
    {"uuid", "2eb8-aa08-aa98-11ea-b4aa73b44-1d16380", false},  // too many dashes
    {"uuid", "2eb8aa08aa9811eab4aa73b441d16380----", false},   // dashes in the wrong spot
    {"uuid", "98d80576-482e-427f-8434-7f86890ab222", true},    // valid version 4
    {"uuid", "99c17cbb-656f-564a-940f-1a4568f03487", true},    // valid version 5
    {"uuid", "99c17cbb-656f-664a-940f-1a4568f03487", true},    // hypothetical version 6
    {"uuid", "99c17cbb-656f-f64a-940f-1a4568f03487", true},    // hypothetical version 15
};

}  // namespace

TEST_CASE("schema format: JSON-Schema-Test-Suite draft2020-12 optional/format, as v6 passes it") {
  for (const SuiteCase& c : k_suite) {
    INFO(c.format << " " << c.data);
    CHECK(!ejob::render::helm::format_error(c.format, c.data).has_value() == c.valid);
  }
}
