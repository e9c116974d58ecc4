#include "src/render/helm/strvals.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "src/render/go/fmt.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::GoType;
using go::Map;
using go::Value;

namespace {

/// A compact, type-revealing rendering: strings quoted, int64 bare, float64 with an `f`.
std::string dump(const Value& v) {
  switch (v.type()) {
    case GoType::Nil: return "null";
    case GoType::Bool: return v.as_bool() ? "true" : "false";
    case GoType::Int64: return std::to_string(v.as_int());
    case GoType::Float64: return fmt::format("{}f", v.as_float());
    case GoType::String: return go_quote(v.as_string());
    case GoType::ListAny: {
      std::string out = "[";
      for (const Value& item : v.as_list()) {
        if (out.size() > 1) out += ',';
        out += dump(item);
      }
      return out + "]";
    }
    case GoType::MapAny: {
      std::string out = "{";
      for (const auto& [k, item] : v.as_map()) {
        if (out.size() > 1) out += ',';
        out += k;
        out += ':';
        out += dump(item);
      }
      return out + "}";
    }
    default: return "?" + v.type_name();
  }
}

std::string parse(std::string_view arg, SetFlag flag = SetFlag::Set) {
  Map m;
  parse_set_into(arg, m, flag, [](const std::string& p) { return "<" + p + ">"; });
  return dump(Value::map(std::move(m)));
}

std::string parse_error(std::string_view arg, SetFlag flag = SetFlag::Set) {
  try {
    parse(arg, flag);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

TEST_CASE("strvals: --set infers bool, null, int64 and leaves the rest strings") {
  CHECK(parse("b=true,e=,i=007,n=-3,s=1.5,z=0") == R"({b:true,e:"",i:"007",n:-3,s:"1.5",z:0})");
  CHECK(parse("a=TRUE,b=False,c=NULL,d=+5,e=1e3,f=0x10") ==
        R"({a:true,b:false,c:null,d:5,e:"1e3",f:"0x10"})");
  CHECK(parse("big=99999999999999999999,min=-9223372036854775808") ==
        R"({big:"99999999999999999999",min:-9223372036854775808})");
}

TEST_CASE("strvals: nested keys, lists and list indexes") {
  CHECK(parse("a.b.c=1") == "{a:{b:{c:1}}}");
  CHECK(parse("a.b=1,a.c=2") == "{a:{b:1,c:2}}");
  CHECK(parse("name={a,b,c}") == R"({name:["a","b","c"]})");
  CHECK(parse("l={1,true,x}") == R"({l:[1,true,"x"]})");
  CHECK(parse("a[0]=x,a[2]=z") == R"({a:["x",null,"z"]})");
  CHECK(parse("a[0].b=1,a[0].c=2") == "{a:[{b:1,c:2}]}");
  CHECK(parse("a[1][2]=x") == R"({a:[null,[null,null,"x"]]})");
  CHECK(parse("a[0]={x,y}") == R"({a:[["x","y"]]})");
  CHECK(parse("a[0]=") == R"({a:[""]})");
}

TEST_CASE("strvals: values keep spaces and later equals signs; escapes work anywhere") {
  CHECK(parse("x=a=b") == R"({x:"a=b"})");
  CHECK(parse("s= spaced ") == R"({s:" spaced "})");
  CHECK(parse(R"(a\.b=c)") == R"({a.b:"c"})");
  CHECK(parse(R"(x=a\,b)") == R"({x:"a,b"})");
  CHECK(parse("a=1,") == "{a:1}");
  CHECK(parse("k=") == R"({k:""})");
  CHECK(parse("l={a,b},m=1") == R"({l:["a","b"],m:1})");
}

TEST_CASE("strvals: later assignments replace earlier ones inside one map") {
  Map m;
  parse_set_into("a.b=1", m, SetFlag::Set);
  parse_set_into("a.c=2,a.b=3", m, SetFlag::Set);
  CHECK(dump(Value::map(m)) == "{a:{b:3,c:2}}");
}

TEST_CASE("strvals: Helm's error texts") {
  CHECK(parse_error("a=1,b") == R"(key "b" has no value)");
  CHECK(parse_error("a,") == R"(key "a" has no value (cannot end with ,))");
  CHECK(parse_error("a=1,a.b=2") ==
        "unable to parse key: interface conversion: interface {} is int64, not "
        "map[string]interface {}");
  CHECK(parse_error("a={x},a.b=2") ==
        "unable to parse key: interface conversion: interface {} is []interface {}, not "
        "map[string]interface {}");
  CHECK(parse_error("a.b=1,a[0]=2") ==
        "unable to parse key: interface conversion: interface {} is map[string]interface {}, "
        "not []interface {}");
  CHECK(parse_error("a[-1]=2") == "negative -1 index not allowed");
  CHECK(parse_error("a[65537]=2") ==
        "index of 65537 is greater than maximum supported index of 65536");
  CHECK(parse_error("a[x]=2") ==
        R"(error parsing index: strconv.Atoi: parsing "x": invalid syntax)");
  // Helm formats the runes with %q: a []rune prints as Go rune literals
  CHECK(parse_error("a[1]x=2") == "unexpected data at end of array index: ['x']");
  CHECK(parse_error("a[1]n'é=2") == R"(unexpected data at end of array index: ['n' '\'' 'é'])");
  CHECK(parse_error("l={a,b") == "list must terminate with '}'");
  CHECK(parse_error("a.=1") == R"(key map "a" has no value)");
  std::string deep;
  for (int i = 0; i < 31; ++i) deep += "k.";
  CHECK(parse_error(deep + "x=1") ==
        "value name nested level is greater than maximum supported nested level of 30");
}

TEST_CASE("strvals: a key without an assignment at the end is ignored as Helm does") {
  CHECK(parse("a[0]") == "{a:[]}");
  CHECK(parse("a.") == "{}");
  CHECK(parse("") == "{}");
}

TEST_CASE("strvals: EOF after an item's key drops the item, as Helm's parser_test expects") {
  // pkg/strvals: listItem returns the list unchanged when the item's key() returns io.EOF
  CHECK(parse("a[1].c=") == "{a:[]}");
  CHECK(parse("a[0].") == "{a:[]}");
  CHECK(parse("a[0][0].") == "{a:[]}");
  CHECK(parse("foo2[0]=1,foo2[1].") == "{foo2:[1]}");
  CHECK(parse("a[1].c=x") == R"({a:[null,{c:"x"}]})");
  CHECK(parse("a[0][1]=") == R"({a:[[null,""]]})");
  // an existing item is a shared map, filled in place even at EOF
  CHECK(parse("a[1].x=1,a[1].c=") == R"({a:[null,{c:"",x:1}]})");
  CHECK(parse("a[1]=5,a[1].c=") == R"({a:[null,{c:""}]})");
  // ...also through an existing inner list
  CHECK(parse("a[0][0]=5,a[0][0].c=") == R"({a:[[{c:""}]]})");
}

TEST_CASE("strvals: after a {list} only a comma is consumed; an empty key is never set") {
  CHECK(parse("a={x}y=1") == R"({a:["x"],y:1})");
  CHECK(parse("=x,[0]=y,b=1") == "{b:1}");
  CHECK(parse_error("a[1") == "error parsing index: EOF");
}

TEST_CASE("strvals: --set-string keeps every value a string") {
  CHECK(parse("a=10,b=true,c=null,l={1,2}", SetFlag::SetString) ==
        R"({a:"10",b:"true",c:"null",l:["1","2"]})");
}

TEST_CASE("strvals: --set-json decodes one JSON document per key") {
  CHECK(parse("a=1 b=2", SetFlag::SetJson) == "{a:1f,b:2f}");
  CHECK(parse(R"(a="x"b=2)", SetFlag::SetJson) == R"({a:"x",b:2f})");
  CHECK(parse("a= ,b=1", SetFlag::SetJson) == "{a:null,b:1f}");
  CHECK(parse(R"(a={"x":[1,2.5,"s"]},b=true)", SetFlag::SetJson) ==
        R"({a:{x:[1f,2.5f,"s"]},b:true})");
  CHECK(parse("a=,b=null, c = 3", SetFlag::SetJson) == "{ c :3f,a:null,b:null}");
  CHECK(parse(R"(s="x,y\u00e9")", SetFlag::SetJson) == R"({s:"x,yé"})");
  CHECK(parse(R"(l[1]={"k":1})", SetFlag::SetJson) == "{l:[null,{k:1f}]}");
  CHECK(parse_error("a=tru", SetFlag::SetJson) ==
        "invalid character 't' looking for beginning of value");
}

TEST_CASE(
    "strvals: --set-json refuses arrays/objects nested more than 10000 deep, as encoding/json") {
  auto nest = [](int n) { return "a=" + std::string(n, '[') + std::string(n, ']'); };
  CHECK(parse_error(nest(10000), SetFlag::SetJson) == "no error");
  CHECK(parse_error(nest(10001), SetFlag::SetJson) == "invalid character '[' exceeded max depth");
}

TEST_CASE("strvals: --set-file reads each value through the reader") {
  CHECK(parse("a=x.txt,b={p,q}", SetFlag::SetFile) == R"({a:"<x.txt>",b:["<p>","<q>"]})");
  CHECK(parse("a=", SetFlag::SetFile) == R"({a:""})");  // EOF after = reads no file
}

TEST_CASE("strvals: --set-literal takes the rest verbatim") {
  CHECK(parse(R"(a.b=x,y=z\,w)", SetFlag::SetLiteral) == R"({a:{b:"x,y=z\\,w"}})");
  CHECK(parse("a[1]={x}", SetFlag::SetLiteral) == R"({a:[null,"{x}"]})");
  CHECK(parse_error("a", SetFlag::SetLiteral) == R"(key "a" has no value)");
}

TEST_CASE("strvals: JSON numbers and strings decode like encoding/json") {
  size_t used = 0;
  CHECK(dump(decode_json_value("  -0.5e2 rest", used)) == "-50f");
  CHECK(used == 8);
  CHECK(dump(decode_json_value(R"("\ud83d\ude00")", used)) == "\"😀\"");
  CHECK_THROWS_AS(decode_json_value("1.", used), Error);
  CHECK_THROWS_AS(decode_json_value("", used), Error);
}

}  // namespace
}  // namespace ejob::render::helm
