// Sprig's list functions (list.go): every function takes any slice kind through reflection and
// returns []interface {}; the must* variants return Go's error where the plain ones panic
// (text/template reports both as `error calling NAME: MESSAGE`).
#include <algorithm>
#include <cmath>
#include <string>

#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

/// The elements of a slice argument, or Go's error `<prefix> <kind><suffix>`; a nil argument
/// fails as reflect.TypeOf(nil).Kind() does.
List elements_or_throw(const Value& v, const std::string& prefix, const std::string& suffix = "") {
  if (v.is_nil()) throw_nil_deref();
  std::optional<List> items = slice_elements(v);
  if (!items) throw FuncError{prefix + " " + kind_name(v) + suffix};
  return std::move(*items);
}

Value any_list(List items) { return Value::list(std::move(items)); }

bool in_list(const List& haystack, const Value& needle) {
  return std::any_of(haystack.begin(), haystack.end(),
                     [&](const Value& h) { return deep_equal(needle, h); });
}

/// Registers NAME and mustNAME with the same implementation (Go's panic and error read alike).
void add_pair(FuncMap& map, const std::string& name, const Function& f) {
  map.add(name, f);
  Function must = f;
  must.returns_error = true;
  std::string must_name = "must" + name;
  must_name[4] = static_cast<char>(std::toupper(static_cast<unsigned char>(must_name[4])));
  map.add(must_name, must);
}

Value chunk(int64_t size, const Value& list) {
  List items = elements_or_throw(list, "Cannot chunk type");
  auto len = static_cast<double>(items.size());
  double count = std::floor((len - 1) / static_cast<double>(size)) + 1;
  auto too_long = [] { throw FuncError{"runtime error: makeslice: len out of range"}; };
  if (!(count >= 0) || count > 1e15) too_long();
  auto cs = static_cast<int64_t>(count);
  List out;
  for (int64_t i = 0; i < cs; ++i) {
    int64_t clen = size;
    if (i == cs - 1) {
      clen = static_cast<int64_t>(std::floor(std::fmod(len, static_cast<double>(size))));
      if (clen == 0) clen = size;
    }
    if (clen < 0) too_long();
    List part;
    for (int64_t j = 0; j < clen; ++j) {
      auto ix = static_cast<size_t>(i * size + j);
      if (ix >= items.size()) {
        throw FuncError{"runtime error: index out of range [" + std::to_string(ix) +
                        "] with length " + std::to_string(items.size())};
      }
      part.push_back(items[ix]);
    }
    out.push_back(any_list(std::move(part)));
  }
  return Value::list(std::move(out), GoType::ListList);  // Go's [][]interface {}
}

Value slice(const FuncArgs& a) {
  const Value& list = a[0];
  List items = elements_or_throw(list, "list should be type of slice or array but");
  if (items.empty()) return {};
  int64_t start = a.size() > 1 ? to_int64(a[1]) : 0;
  int64_t end = a.size() > 2 ? to_int64(a[2]) : static_cast<int64_t>(items.size());
  if (start < 0 || end < start || end > static_cast<int64_t>(items.size())) {
    throw FuncError{"reflect.Value.Slice: slice index out of bounds"};
  }
  List out(items.begin() + start, items.begin() + end);
  if (list.type() == GoType::Bytes) {
    std::string raw =
        list.as_string().substr(static_cast<size_t>(start), static_cast<size_t>(end - start));
    return Value::bytes(std::move(raw));
  }
  // The result keeps the slice's own type ([]string stays []string).
  return Value::list(std::move(out), list.is_list() ? list.type() : GoType::ListAny);
}

/// list, tuple, append/push, prepend and chunk: lists made or grown.
void add_building(FuncMap& map) {
  auto list = fn_variadic(
      {P::Any}, [](const FuncArgs& a) { return any_list(List(a.args.begin(), a.args.end())); });
  map.add("list", list);
  map.add("tuple", list);
  Function push = fn({P::Any, P::Any}, [](const FuncArgs& a) {
    List items = elements_or_throw(a[0], "Cannot push on type");
    items.push_back(a[1]);
    return any_list(std::move(items));
  });
  add_pair(map, "append", push);
  add_pair(map, "push", push);
  add_pair(map, "prepend", fn({P::Any, P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot prepend on type");
             items.insert(items.begin(), a[1]);
             return any_list(std::move(items));
           }));
  add_pair(map, "chunk",
           fn({P::Int, P::Any}, [](const FuncArgs& a) { return chunk(a[0].as_int(), a[1]); }));
}

/// last, first, rest, initial and reverse.
void add_ends(FuncMap& map) {
  add_pair(map, "last", fn({P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot find last on type");
             return items.empty() ? Value() : items.back();
           }));
  add_pair(map, "first", fn({P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot find first on type");
             return items.empty() ? Value() : items.front();
           }));
  add_pair(map, "rest", fn({P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot find rest on type");
             if (items.empty()) return Value::nil_list();  // Sprig returns nil for []
             items.erase(items.begin());
             return any_list(std::move(items));
           }));
  add_pair(map, "initial", fn({P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot find initial on type");
             if (items.empty()) return Value::nil_list();  // Sprig returns nil for []
             items.pop_back();
             return any_list(std::move(items));
           }));
  add_pair(map, "reverse", fn({P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot find reverse on type");
             std::reverse(items.begin(), items.end());
             return any_list(std::move(items));
           }));
}

/// compact, uniq, without, has and slice.
void add_filters(FuncMap& map) {
  add_pair(map, "compact", fn({P::Any}, [](const FuncArgs& a) {
             List out;
             for (Value& v : elements_or_throw(a[0], "Cannot compact on type")) {
               if (!is_empty(v)) out.push_back(std::move(v));
             }
             return any_list(std::move(out));
           }));
  add_pair(map, "uniq", fn({P::Any}, [](const FuncArgs& a) {
             List out;
             for (Value& v : elements_or_throw(a[0], "Cannot find uniq on type")) {
               if (!in_list(out, v)) out.push_back(std::move(v));
             }
             return any_list(std::move(out));
           }));
  add_pair(map, "without", fn_variadic({P::Any, P::Any}, [](const FuncArgs& a) {
             List items = elements_or_throw(a[0], "Cannot find without on type");
             List omit(a.args.begin() + 1, a.args.end());
             List out;
             for (Value& v : items) {
               if (!in_list(omit, v)) out.push_back(std::move(v));
             }
             return any_list(std::move(out));
           }));
  add_pair(map, "has", fn({P::Any, P::Any}, [](const FuncArgs& a) {
             if (a[1].is_nil()) return Value::boolean(false);
             List items = elements_or_throw(a[1], "Cannot find has on type");
             return Value::boolean(in_list(items, a[0]));
           }));
  add_pair(map, "slice", fn_variadic({P::Any, P::Any}, slice));
}

/// concat and sortAlpha.
void add_joined(FuncMap& map) {
  map.add("concat", fn_variadic({P::Any}, [](const FuncArgs& a) {
            List out;
            for (const Value& l : a.args) {
              List items = elements_or_throw(l, "Cannot concat type", " as list");
              out.insert(out.end(), items.begin(), items.end());
            }
            // Sprig appends to a nil slice: no items at all leaves it nil
            return out.empty() ? Value::nil_list() : any_list(std::move(out));
          }));
  map.add("sortAlpha", fn({P::Any}, [](const FuncArgs& a) {
            if (!slice_elements(a[0])) return string_list({strval(a[0])});
            std::vector<std::string> items = to_string_slice(a[0]);
            std::sort(items.begin(), items.end());
            return string_list(std::move(items));
          }));
}

}  // namespace

void register_sprig_lists(FuncMap& map) {
  add_building(map);
  add_ends(map);
  add_filters(map);
  add_joined(map);
}

}  // namespace ejob::render::sprig
