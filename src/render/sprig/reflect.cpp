// Sprig's reflection functions (reflect.go): typeOf is fmt's %T, kindOf is reflect.Kind's name.
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

}  // namespace

void register_sprig_reflect(FuncMap& map) {
  auto str = [](const FuncArgs& a, size_t i) -> const std::string& { return a[i].as_string(); };
  map.add("typeOf",
          fn({P::Any}, [](const FuncArgs& a) { return Value::string(a[0].type_name()); }));
  map.add("typeIs", fn({P::String, P::Any}, [=](const FuncArgs& a) {
            return Value::boolean(str(a, 0) == a[1].type_name());
          }));
  map.add("typeIsLike", fn({P::String, P::Any}, [=](const FuncArgs& a) {
            std::string t = a[1].type_name();
            return Value::boolean(str(a, 0) == t || "*" + str(a, 0) == t);
          }));
  map.add("kindOf", fn({P::Any}, [](const FuncArgs& a) { return Value::string(kind_name(a[0])); }));
  map.add("kindIs", fn({P::String, P::Any}, [=](const FuncArgs& a) {
            return Value::boolean(str(a, 0) == kind_name(a[1]));
          }));
  map.add("deepEqual", fn({P::Any, P::Any}, [](const FuncArgs& a) {
            return Value::boolean(deep_equal(a[0], a[1]));
          }));
}

}  // namespace ejob::render::sprig
