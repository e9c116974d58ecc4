// Function calls and argument evaluation of the executor (exec.go evalCall, evalArg,
// validateType, idealConstant): Go's arity, assignability and constant-conversion rules.

#include <array>
#include <exception>

#include "src/render/go/fmt.hpp"
#include "src/render/text_template/exec.hpp"

namespace ejob::render::text_template {

using go::FuncError;
using go::GoType;
using go::List;
using go::Map;
using go::Value;

namespace {

bool can_be_nil(Param p) {
  return p == Param::Any || p == Param::ListAny || p == Param::ListString || p == Param::MapAny ||
         p == Param::Bytes;
}

/// The zero value of a nil-able parameter type (a nil slice/map prints like an empty one).
EVal typed_nil(Param p) {
  switch (p) {
    case Param::ListAny: return {Value::list(List{}, GoType::ListAny), false};
    case Param::ListString: return {Value::list(List{}, GoType::ListString), false};
    case Param::MapAny: return {Value::map(Map{}, GoType::MapAny), false};
    case Param::Bytes: return {Value::bytes(""), false};
    default: return {Value(), true};  // a nil interface{}
  }
}

/// Go assignability of a concrete value to a parameter type; may convert the value's type
/// (chartutil.Values → map[string]interface {}, a named slice object → its slice).
bool assign_to(Value& v, Param p) {
  switch (p) {
    case Param::Any: return true;
    case Param::String: return v.type() == GoType::String;
    case Param::Int: return v.type() == GoType::Int;
    case Param::Int64: return v.type() == GoType::Int64;
    case Param::Float64: return v.type() == GoType::Float64;
    case Param::Bool: return v.type() == GoType::Bool;
    case Param::Bytes: return v.type() == GoType::Bytes;
    case Param::Time:
    case Param::Certificate:  // Go structs: only a value of that very type is assignable
      return v.is_object() && v.as_object().type_name() == param_type_name(p);
    case Param::ListAny:
    case Param::ListString: {
      GoType want = p == Param::ListAny ? GoType::ListAny : GoType::ListString;
      if (v.type() == want) return true;
      if (v.is_object()) {
        Value u = v.as_object().underlying();
        if (u.type() == want) {
          v = u;
          return true;
        }
      }
      return false;
    }
    case Param::MapAny:
      if (v.type() == GoType::MapAny) return true;
      if (v.type() == GoType::Values) {
        v = Value::map(v.map_ptr(), GoType::MapAny);
        return true;
      }
      return false;
  }
  return false;
}

bool is_hex_int(std::string_view s) {
  return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
         s.find_first_of("pP") == std::string_view::npos;
}

// Go executes nested templates up to 100000 deep (and Helm allows 1000 nested includes); the
// C++ recursion that mirrors it would overflow a thread's usual 8 MiB stack. Executions nested
}  // namespace

EVal Executor::ideal_constant(const NumberNode& n) {
  at(&n);
  if (n.is_complex) errorf("complex constant " + std::string(n.text) + " is not supported");
  if (n.is_float && !is_hex_int(n.text) && !n.text.starts_with('\'') &&
      n.text.find_first_of(".eEpP") != std::string_view::npos) {
    return {Value::float64(n.f64), false};
  }
  if (n.is_int) return {Value::integer(n.i64), false};
  if (n.is_uint) errorf(std::string(n.text) + " overflows int");
  return {};
}

namespace {

/// The name Go 1.24's evalCall gives `call`'s callee: the first argument's node, or, when the
/// callee is piped in, reflect.Value.String() of it (a string itself, else "<T Value>").
std::string callee_name(const std::vector<std::unique_ptr<Node>>* args, const Value* final) {
  if (args != nullptr && args->size() > 1) return node_string(*(*args)[1]);
  if (final == nullptr) return "";
  return final->is_string() ? final->as_string() : "<" + final->type_name() + " Value>";
}

}  // namespace

EVal Executor::eval_call(const EVal& dot, const Function& fn, Special sp, const Node& node,
                         std::string_view name, const Args* args, const Value* final,
                         const Value* receiver) {
  size_t nargs = args != nullptr ? args->size() - 1 : 0;
  size_t num_in = nargs + (final != nullptr ? 1 : 0);
  size_t nparams = fn.params.size();
  size_t num_fixed = nargs;
  if (fn.variadic) {
    num_fixed = nparams - 1;
    if (num_in < num_fixed) {
      errorf("wrong number of args for " + std::string(name) + ": want at least " +
             std::to_string(nparams - 1) + " got " + std::to_string(nargs));
    }
  } else if (num_in != nparams) {
    errorf("wrong number of args for " + std::string(name) + ": want " + std::to_string(nparams) +
           " got " + std::to_string(num_in));
  }
  if (sp != Special::None) {
    // and/or: evaluate left to right, stop at the first falsy (and) / truthy (or) value.
    EVal v;
    for (size_t i = 0; i < nargs; ++i) {
      v = eval_arg(dot, Param::Any, *(*args)[i + 1]);
      if (v.v.truthy() == (sp == Special::Or)) return v;
    }
    if (final != nullptr) v = EVal{*final, false};
    return v;
  }
  // Most calls take few arguments: keep them on the stack.
  std::array<Value, 6> small;
  std::vector<Value> large;
  if (num_in > small.size()) large.resize(num_in);
  std::span<Value> argv =
      num_in > small.size() ? std::span<Value>(large) : std::span<Value>(small.data(), num_in);
  uint64_t mask = 0;
  size_t i = 0;
  for (; i < num_fixed && i < nargs; ++i) {
    EVal a = eval_arg(dot, fn.params[i], *(*args)[i + 1]);
    if (a.iface && i < 64) mask |= uint64_t{1} << i;
    argv[i] = std::move(a.v);
  }
  if (fn.variadic) {
    for (; i < nargs; ++i) {
      EVal a = eval_arg(dot, fn.params.back(), *(*args)[i + 1]);
      if (a.iface && i < 64) mask |= uint64_t{1} << i;
      argv[i] = std::move(a.v);
    }
  }
  if (final != nullptr) {
    Param t = fn.params.empty() ? Param::Any : fn.params.back();
    if (fn.variadic && num_in - 1 < num_fixed) t = fn.params[num_in - 1];
    argv[i] = validate_type(EVal{*final, false}, t).v;
  }
  CallContext ctx{this, mask, receiver, {}};
  if (name == "call") ctx.callee = callee_name(args, final);
  try {
    return {fn.impl(FuncArgs{std::span<const Value>(argv.data(), argv.size()), &ctx}), false};
  } catch (const FuncError& e) {
    at(&node);
    errorf("error calling " + std::string(name) + ": " + e.message);
  } catch (const ExecError& e) {
    at(&node);
    errorf("error calling " + std::string(name) + ": HELM_ERR_START" + e.message + "HELM_ERR_END");
  } catch (const ExecFailure&) {
    throw;
  } catch (const std::exception& e) {
    at(&node);
    errorf("error calling " + std::string(name) + ": " + e.what());
  }
}

EVal Executor::validate_type(EVal value, Param typ) {
  if (value.v.is_nil() && !value.iface) {
    if (can_be_nil(typ)) return typ == Param::Any ? EVal{} : typed_nil(typ);
    errorf("invalid value; expected " + std::string(param_type_name(typ)));
  }
  if (typ == Param::Any) return value;
  if (value.iface && value.v.is_nil()) {
    errorf("wrong type for value; expected " + std::string(param_type_name(typ)) +
           "; got interface {}");
  }
  value.iface = false;
  if (!assign_to(value.v, typ)) {
    errorf("wrong type for value; expected " + std::string(param_type_name(typ)) + "; got " +
           value.v.type_name());
  }
  return value;
}

EVal Executor::eval_arg(const EVal& dot, Param typ, const Node& n) {
  at(&n);
  switch (n.type) {
    case NodeType::Dot: return validate_type(dot, typ);
    case NodeType::Nil:
      // An explicit nil is no value at all for the reflect.Value builtins (`len nil` is Go's
      // "call of reflect.Value.Type on zero Value"); interface{} functions see nil either way.
      if (typ == Param::Any) return {};
      if (can_be_nil(typ)) return typed_nil(typ);
      errorf("cannot assign nil to " + std::string(param_type_name(typ)));
    case NodeType::Field: {
      return validate_type(eval_field_node(dot, static_cast<const FieldNode&>(n), nullptr, nullptr),
                           typ);
    }
    case NodeType::Variable:
      return validate_type(eval_variable(dot, static_cast<const FieldNode&>(n), nullptr, nullptr),
                           typ);
    case NodeType::Pipe:
      return validate_type({eval_pipeline(dot, static_cast<const PipeNode*>(&n)), false}, typ);
    case NodeType::Identifier: {
      const auto& id = static_cast<const IdentifierNode&>(n);
      return validate_type(eval_function(dot, id, id, nullptr, nullptr), typ);
    }
    case NodeType::Chain:
      return validate_type(eval_chain(dot, static_cast<const ChainNode&>(n), nullptr, nullptr),
                           typ);
    default: return constant_arg(typ, n);
  }
}

EVal Executor::constant_arg(Param typ, const Node& n) {
  switch (typ) {
    case Param::Bool:
      if (n.type == NodeType::Bool)
        return {Value::boolean(static_cast<const BoolNode&>(n).value), false};
      errorf("expected bool; found " + node_string(n));
    case Param::Float64:
      if (n.type == NodeType::Number && static_cast<const NumberNode&>(n).is_float) {
        return {Value::float64(static_cast<const NumberNode&>(n).f64), false};
      }
      errorf("expected float; found " + node_string(n));
    case Param::Int:
    case Param::Int64:
      if (n.type == NodeType::Number && static_cast<const NumberNode&>(n).is_int) {
        return {Value::integer(static_cast<const NumberNode&>(n).i64,
                               typ == Param::Int ? GoType::Int : GoType::Int64),
                false};
      }
      errorf("expected integer; found " + node_string(n));
    case Param::String:
      if (n.type == NodeType::String) {
        return {Value::string(static_cast<const StringNode&>(n).text), false};
      }
      errorf("expected string; found " + node_string(n));
    case Param::Any:
      switch (n.type) {
        case NodeType::Bool: return {Value::boolean(static_cast<const BoolNode&>(n).value), false};
        case NodeType::Number: return ideal_constant(static_cast<const NumberNode&>(n));
        case NodeType::String:
          return {Value::string(static_cast<const StringNode&>(n).text), false};
        default:
          errorf("can't handle assignment of " + node_string(n) + " to empty interface argument");
      }
    default:
      errorf("can't handle " + node_string(n) + " for arg of type " +
             std::string(param_type_name(typ)));
  }
}

}  // namespace ejob::render::text_template
