// Sprig's path functions (Go's path and, on Unix identical, path/filepath), urlParse and
// urlJoin (over src/render/go/url, Go 1.26's net/url), Sprig's own `fail`, and getHostByName (Helm
// replaces it; without DNS access here it resolves nothing and panics as Sprig does on an empty
// answer).
#include <string>
#include <string_view>

#include "src/render/go/url.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

std::string clean(std::string_view path) {
  if (path.empty()) return ".";
  bool rooted = path[0] == '/';
  size_t n = path.size();
  std::string out;
  size_t r = 0;
  size_t dotdot = 0;
  if (rooted) {
    out = "/";
    r = dotdot = 1;
  }
  while (r < n) {
    if (path[r] == '/') {
      ++r;
    } else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
      ++r;
    } else if (path[r] == '.' && path[r + 1] == '.' && (r + 2 == n || path[r + 2] == '/')) {
      r += 2;
      if (out.size() > dotdot) {
        out.pop_back();
        while (out.size() > dotdot && out.back() != '/') out.pop_back();
        if (out.size() > dotdot && out.back() == '/') out.pop_back();
      } else if (!rooted) {
        if (!out.empty()) out += '/';
        out += "..";
        dotdot = out.size();
      }
    } else {
      if ((rooted && out.size() != 1) || (!rooted && !out.empty())) out += '/';
      for (; r < n && path[r] != '/'; ++r) out += path[r];
    }
  }
  return out.empty() ? "." : out;
}

std::string base(std::string_view path) {
  if (path.empty()) return ".";
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  size_t i = path.rfind('/');
  if (i != std::string_view::npos) path.remove_prefix(i + 1);
  return path.empty() ? "/" : std::string(path);
}

std::string dir(std::string_view path) {
  size_t i = path.rfind('/');
  return clean(i == std::string_view::npos ? "" : path.substr(0, i + 1));
}

std::string ext(std::string_view path) {
  for (size_t i = path.size(); i > 0 && path[i - 1] != '/'; --i) {
    if (path[i - 1] == '.') return std::string(path.substr(i - 1));
  }
  return "";
}

Value url_parse(const std::string& raw) {
  std::string error;
  const std::optional<go::Url> parsed = go::parse_url(raw, &error);
  if (!parsed) throw FuncError{"unable to parse url: " + error};
  const go::Url& u = *parsed;
  Map d;
  d["scheme"] = Value::string(u.scheme);
  d["host"] = Value::string(u.host);
  d["hostname"] = Value::string(go::url_hostname(u.host));
  d["path"] = Value::string(u.path);
  d["query"] = Value::string(u.raw_query);
  d["opaque"] = Value::string(u.opaque);
  d["fragment"] = Value::string(u.fragment);
  d["userinfo"] = Value::string(u.userinfo);
  return Value::map(std::move(d));
}

std::string dict_string(const Map& d, const std::string& key) {
  auto it = d.find(key);
  if (it == d.end()) return "";
  if (!it->second.is_string()) {
    if (it->second.is_nil()) throw_nil_deref();
    throw FuncError{"unable to parse " + key + " key, must be of type string, but " +
                    kind_name(it->second) + " found"};
  }
  return it->second.as_string();
}

std::string url_join(const Map& d) {
  go::Url u;
  u.scheme = dict_string(d, "scheme");
  u.host = dict_string(d, "host");
  u.path = dict_string(d, "path");
  u.raw_query = dict_string(d, "query");
  u.opaque = dict_string(d, "opaque");
  u.fragment = dict_string(d, "fragment");
  if (std::string userinfo = dict_string(d, "userinfo"); !userinfo.empty()) {
    std::string error;
    const auto parsed = go::parse_url("proto://" + userinfo + "@host", &error);
    if (!parsed) throw FuncError{"unable to parse userinfo in dict: " + error};
    u.has_user = parsed->has_user;
    u.userinfo = parsed->userinfo;
  }
  return go::url_string(u);
}

}  // namespace

void register_sprig_paths(FuncMap& map, const std::shared_ptr<const Env>& /*env*/) {
  auto path_fn = [&](std::string name, std::string (*f)(std::string_view)) {
    map.add(name,
            fn({P::String}, [f](const FuncArgs& a) { return Value::string(f(a[0].as_string())); }));
  };
  for (const char* prefix : {"", "os"}) {
    std::string p = prefix;
    auto name = [&](std::string n) {
      if (p.empty()) return n;
      n[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(n[0])));
      return p + n;
    };
    path_fn(name("base"), base);
    path_fn(name("dir"), dir);
    path_fn(name("clean"), clean);
    path_fn(name("ext"), ext);
    map.add(name("isAbs"), fn({P::String}, [](const FuncArgs& a) {
              return Value::boolean(a[0].as_string().starts_with("/"));
            }));
  }
  map.add("urlParse",
          fn({P::String}, [](const FuncArgs& a) { return url_parse(a[0].as_string()); }));
  map.add("urlJoin", fn({P::MapAny},
                        [](const FuncArgs& a) { return Value::string(url_join(a[0].as_map())); }));
  map.add("fail",
          fn(
              {P::String}, [](const FuncArgs& a) -> Value { throw FuncError{a[0].as_string()}; },
              Ret::ValueError));
  map.add("getHostByName", fn({P::String}, [](const FuncArgs&) -> Value {
            // Go indexes addrs[rand.Intn(0)] on an empty lookup result.
            throw FuncError{"invalid argument to Intn"};
          }));
}

}  // namespace ejob::render::sprig
