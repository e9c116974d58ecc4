"""`ejob version` against what built it and what it runs with: its version is the project's,
its revision is the source tree's HEAD, its build type the build's, and each library's
version is what that library's package says (pkg-config; RE2, whose .pc file says 0.0.0,
from dpkg): a libcurl, OpenSSL or zlib other than the build's, loaded at run time, shows.

Usage: check_version.py EJOB SOURCE_DIR VERSION BUILD_TYPE
"""
import subprocess
import sys

PKG_CONFIG = {"libcurl": "libcurl", "OpenSSL": "openssl", "zlib": "zlib", "yaml-cpp": "yaml-cpp",
              "fmt": "fmt", "nlohmann/json": "nlohmann_json", "CLI11": "CLI11",
              "toml++": "tomlplusplus"}


def output(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()


def re2_package_version():
    owner = output("dpkg-query", "-S", "/usr/include/re2/re2.h").split(":")[0]
    return output("dpkg-query", "-W", "-f=${Version}", owner)


def main(ejob, source, version, build_type):
    shown = dict(line.split(": ", 1) for line in output(ejob, "version").splitlines())
    expected = {"version": version, "build type": build_type, "RE2": re2_package_version()}
    expected.update({name: output("pkg-config", "--modversion", module)
                     for name, module in PKG_CONFIG.items()})
    wrong = ["%s: %r, expected %r" % (k, shown.get(k), v) for k, v in expected.items()
             if shown.get(k) != v]
    head = output("git", "-C", source, "rev-parse", "--short=12", "HEAD")
    if head not in shown.get("revision", ""):
        wrong.append("revision: %r does not name HEAD %s" % (shown.get("revision"), head))
    short = output(ejob, "--version")
    if short != "ejob " + version:
        wrong.append("--version: %r" % short)
    for line in wrong:
        print("ejob version: " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
