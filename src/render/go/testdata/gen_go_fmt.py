"""Generates go_fmt_cases.inc: fmt.Sprintf/Sprint/Sprintln/FormatFloat/Quote results computed
by Go 1.19 itself. Run: python3 src/render/go/testdata/gen_go_fmt.py (needs `go` and GOPATH
/tmp/gp with a package chartutil defining `type Values map[string]interface{}`)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from gocases import cpp_expr, cpp_string, go_bytes, go_expr, run_go  # noqa: E402

NESTED = [1, 'a', None, 2.5, True, ['x', None], {'k': 1.0, 'a': None}]
SPRINTF = [
    ('%v', [NESTED]), ('%d', [NESTED]), ('%s', [NESTED]), ('%#v', [NESTED]), ('%+v', [NESTED]),
    ('%v', [{'b': 2.0, 'a': 'x', 'c': [1.0, 2.0]}]), ('%#v', [{'b': 2.0, 'a': 'x'}]),
    ('%v', [('vals', {'z': 1.0, 'a': {}})]), ('%#v', [('vals', {'z': 1.0})]),
    ('%T', [('vals', {})]), ('%v', [('ms', {'b': 'x', 'a': 'y'})]), ('%#v', [('ms', {'a': 'y'})]),
    ('%v', [('ls', ['a', 'b c'])]), ('%q', [('ls', ['a', 'b"c'])]), ('%#v', [('ls', ['a'])]),
    ('%v', [('li', [1, 2])]), ('%x', [('li', [10, 255])]), ('%#v', [('li', [])]),
    ('%v', [[]]), ('%v', [{}]), ('%#v', [[]]), ('%#v', [{}]),
    ('%v %v %v', [1000000.0, 123456.0, 1234567.0]), ('%v', [1e20]), ('%v', [1e21]),
    ('%v', [12345678901234567890.0]), ('%v', [0.0001]), ('%v', [0.00001]), ('%v', [2.5e-5]),
    ('%v', [1 / 3]), ('%v', [3.0]), ('%v', [-0.0]), ('%v', [('f', 'inf')]), ('%v', [('f', '-inf')]),
    ('%v', [('f', 'nan')]), ('%5.1f|%-8.3e|%+g', [('f', 'inf'), ('f', 'nan'), ('f', 'nan')]),
    ('%05v|%+v|% v', [('f', 'inf'), ('f', '-inf'), ('f', 'nan')]),
    ('%f %e %E %g %G %F', [1234.5678] * 6), ('%.2f %.0f %.3e %.3g %.10g', [2.675] * 5),
    ('%.2f %.2f %.1f %.0f %.0f', [0.125, 0.375, 0.25, 0.5, 1.5]), ('%.3g|%.2g|%.1g', [100.0] * 3),
    ('%#g|%#.3g|%#v|%#f|%#.0f|%#e|%#.0e', [1.0] * 7), ('%#g %#g %#g', [123456789.0, 0.0, 1e-7]),
    ('%#v %#v %#v', [1.5, 1e6, 100.0]), ('%08.3f|%-8.3f|%+08.3f|% 8.3f', [-3.14159] * 4),
    ('%08.3f|% .3f|%+.3f|%+08.3f', [3.14159] * 4), ('%b', [1.0]), ('%b', [-0.1]),
    ('%x %X %.3x %#x %.0x', [1234.5678] * 5), ('%x %x %x', [0.0, 1.0, -2.5]), ('%20.10e', [1e-300]),
    ('%.30f', [0.1]), ('%.20g', [0.1]), ('%e', [0.0]), ('%g', [5e-324]), ('%v', [1.7976931348623157e308]),
    ('%.1f %.1f %.1f', [0.05, 0.15, 0.25]), ('%.60f', [1e-50]), ('%6.2v', [3.14159]),
    ('%d %5d %-5d| %05d %+d % d %x %X %o %O %b %#x %#o %#b', [42] * 13),
    ('%d %x %#X %o %b %05d %+05d', [-42] * 7), ('%.3d|%.0d|%5.0d|%05.2d|%-05d', [7, 0, 0, 7, 7]),
    ('%c %c %c %c', [65, 0x263A, -1, 0x110000]), ('%q %q %+q %#q %q', [65, 0x263A, 0x263A, 0x263A, 7]),
    ('%U %#U %#U %.6U %#U', [0x263A, 0x263A, 65, 1, 7]), ('%v %d %x', [('I', -9223372036854775808)] * 3),
    ('%v %x %#v %#x', [('u', 18446744073709551615)] * 4), ('%v %#v %d %c', [('B', 200)] * 4),
    ('%v|%#v|%T', [('I', 5)] * 3), ('%T %T %T %T %T', [1, 1.5, 'x', None, True]),
    ('%T %T %T %T %T', [[], {}, b'ab', ('ls', []), ('ms', {})]), ('%T %T', [('u', 1), ('B', 1)]),
    ('%s|%10s|%-10s|%.2s|%5.1s|%q|%x|%X|% x|%#x|% #X', ['héllo'] * 11),
    ('%q', ['a\tb\n"\\\x01\x7f\u00ff\u2028\U0001F600 \ufeff']), ('%+q', ['héllo\U0001F600']),
    ('%#q %#q %#q', ['abc', 'a`b', 'a\nb']), ('%q', ['\xff\xfe ok \xed\xa0\x80']),
    ('%v %s %q %x %d %o %#v %T', [b'hi\x00'] * 8), ('%s', [[b'ab', 'c']]),
    ('%t %v %d %s', [True] * 4), ('%5t|%-6t|', [False, True]),
    ('%d', ['x']), ('%s', [1]), ('%s', [None]), ('%d', [None]), ('%5d', ['ab']), ('%z', [1.5]),
    ('%!', []), ('%', []), ('%d %d', [1]), ('%d', [1, 'x', None, 2.5]), ('hi', [1]),
    ('%[2]d %[1]d', [1, 2]), ('%[3]d', [1, 2]), ('%[0]d', [1]), ('%[x]d', [1]), ('%[1]d %d', [1, 2]),
    ('%[2]*[1]d', [12, 5]), ('%*d|%-*d|%*d', [5, 1, 5, 2, -4, 3]), ('%.*f', [2, 3.14159]),
    ('%*d', ['x', 1]), ('%.*d', ['x', 1]), ('%.*d', [-1, 5]), ('%*d', [10000000, 1]),
    ('%3[1]d', [1]), ('%[1]3d', [1]), ('%.[1]d', [1]), ('%[1].2f', [1.0]), ('%[2]', [1, 2]),
    ('%5%|%-5%|%05%', []), ('%w', [1]), ('%p', [1]), ('%p', ['s']), ('%é', [1]), ('100%', []),
    ('%.', [1]), ('%-', [1]), ('%0-5d|%-05d', [1, 2]), ('%+.3e', [0.0]), ('% d % d', [5, -5]),
    ('%v', ["<no value>"]), ('%s %s', ['a']), ('%v', [[[]]]), ('%v', [{'a': {'b': [None]}}]),
    ('%6.2f%%', [99.5]), ('%x', [[1, 'ab', 2.5]]), ('%X', [{'k': 'v'}]), ('%10v|%-10v|', [[1, 2], 'x']),
    ('%05s|%05q', ['ab', 'ab']), ('%.1q', ['héllo']), ('%.3x', ['héllo']), ('%08b', [5]),
    ('%e %g', [1e100, 1e-100]), ('%v %v', [100000.0, 999999.0]), ('%v', [123456789.0]),
    ('%v', [0.000123]), ('%v', [1.5e300]), ('%.17g', [0.1]), ('%.18g', [0.1]), ('%.25e', [1 / 3]),
]
SPRINT = [[1, 2, 'a', 'b', 3, None, True], ['a', 1, 'b'], [1.5, 2.5], [None, None], [],
          [[1], [2]], ['x', None, 'y'], [1e6, 'z', b'ab', 3]]
FLOATS = [(1.0, 'g', -1, 64), (0.1, 'g', -1, 32), (1.1, 'g', -1, 32), (16777217.0, 'g', -1, 32),
          (3.4e38, 'g', -1, 32), (1e-45, 'e', -1, 32), (1.1, 'e', 3, 32), (123456789.0, 'f', -1, 32),
          (0.3, 'f', -1, 64), (1e21, 'f', -1, 64), (1e-7, 'e', -1, 64), (1e23, 'g', -1, 64),
          (123.456, 'E', 2, 64), (123.456, 'G', 4, 64), (2.5, 'f', 0, 64), (3.5, 'f', 0, 64),
          (0.5, 'e', 0, 64), (9.5, 'e', 0, 64), (99.99, 'g', 3, 64), (99.99, 'g', 2, 64),
          (1e-5, 'g', -1, 64), (123456.0, 'g', 6, 64), (123456.0, 'g', 5, 64), (1.0, 'f', 3, 32)]
QUOTES = ['', 'plain', 'tab\there', 'nul\x00', 'bell\a\b\f\v\r', '\u0085 \u00a0 \u200b \u2028',
          '\U000e0001 \U0010ffff', 'ünïcödé', '\x80\xc3', 'ok\U0001F600']


def main():
    body = ['\tout := func(s string) { fmt.Println(base64.StdEncoding.EncodeToString([]byte(s))) }']
    for f, args in SPRINTF:
        body.append('\tout(fmt.Sprintf(%s%s))' % (
            go_bytes(f.encode()), ''.join(', ' + go_expr(a) for a in args)))
    for args in SPRINT:
        a = ', '.join(go_expr(x) for x in args)
        body.append('\tout(fmt.Sprint(%s))' % a)
        body.append('\tout(fmt.Sprintln(%s))' % a)
    for x, c, p, b in FLOATS:
        body.append("\tout(strconv.FormatFloat(%r, '%s', %d, %d))" % (x, c, p, b))
    for q in QUOTES:
        body.append('\tout(strconv.Quote(%s))' % go_bytes(q.encode()))
    results = iter(run_go('\n'.join(body), ['encoding/base64', 'fmt', 'math', 'strconv',
                                             'chartutil']))
    lines = ['// Generated by src/render/go/testdata/gen_go_fmt.py from Go 1.19 output. Do not edit.']
    lines.append('const std::vector<SprintfCase> k_sprintf_cases = {')
    for f, args in SPRINTF:
        lines.append('    {%s, {%s}, %s},' % (cpp_string(f), ', '.join(cpp_expr(a) for a in args),
                                             cpp_string(next(results))))
    lines.append('};')
    lines.append('const std::vector<SprintCase> k_sprint_cases = {')
    for args in SPRINT:
        lines.append('    {{%s}, %s, %s},' % (', '.join(cpp_expr(a) for a in args),
                                             cpp_string(next(results)), cpp_string(next(results))))
    lines.append('};')
    lines.append('const std::vector<FloatCase> k_float_cases = {')
    for x, c, p, b in FLOATS:
        lines.append("    {%r, '%s', %d, %d, %s}," % (x, c, p, b, cpp_string(next(results))))
    lines.append('};')
    lines.append('const std::vector<QuoteCase> k_quote_cases = {')
    for q in QUOTES:
        lines.append('    {%s, %s},' % (cpp_string(q), cpp_string(next(results))))
    lines.append('};')
    out = os.path.join(os.path.dirname(__file__), 'go_fmt_cases.inc')
    with open(out, 'w') as f:
        f.write('\n'.join(lines) + '\n')


main()
