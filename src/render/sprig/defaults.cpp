// Sprig's defaults.go (without the JSON functions, see json_funcs.cpp): default, empty,
// coalesce, all, any, ternary, deepCopy.
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

}  // namespace

void register_sprig_defaults(FuncMap& map) {
  // default(d, given...): the piped value is the last argument; only given[0] counts.
  map.add("default", fn_variadic({P::Any, P::Any}, [](const FuncArgs& a) {
            if (a.size() < 2 || is_empty(a[1])) return a[0];
            return a[1];
          }));
  map.add("empty", fn({P::Any}, [](const FuncArgs& a) { return Value::boolean(is_empty(a[0])); }));
  map.add("coalesce", fn_variadic({P::Any}, [](const FuncArgs& a) {
            for (const Value& v : a.args) {
              if (!is_empty(v)) return v;
            }
            return Value();
          }));
  map.add("all", fn_variadic({P::Any}, [](const FuncArgs& a) {
            for (const Value& v : a.args) {
              if (is_empty(v)) return Value::boolean(false);
            }
            return Value::boolean(true);
          }));
  map.add("any", fn_variadic({P::Any}, [](const FuncArgs& a) {
            for (const Value& v : a.args) {
              if (!is_empty(v)) return Value::boolean(true);
            }
            return Value::boolean(false);
          }));
  map.add("ternary", fn({P::Any, P::Any, P::Bool},
                        [](const FuncArgs& a) { return a[2].as_bool() ? a[0] : a[1]; }));
  auto copy = [](const FuncArgs& a) {
    // copystructure.Copy(nil) panics inside reflect.
    if (a[0].is_nil()) throw FuncError{"reflect: call of reflect.Value.Type on zero Value"};
    return a[0].deep_copy();
  };
  map.add("deepCopy", fn({P::Any}, copy));
  map.add("mustDeepCopy", fn({P::Any}, copy, Ret::ValueError));
}

}  // namespace ejob::render::sprig
