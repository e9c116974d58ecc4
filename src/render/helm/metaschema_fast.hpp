#pragma once
/// The check of a values.schema.json against the standard metaschema of draft 7, 2019-09 or
/// 2020-12,
/// written out keyword by keyword: what v6's validator finds by applying the metaschema (a
/// 2020-12 document is checked by seven vocabulary metaschemas at every subschema, ~25,000
/// instructions each), found by one walk of the document. It only ever answers "valid": where
/// the document breaks a rule, or uses what the walk does not cover (`$vocabulary`), it answers
/// "cannot tell", and the validator runs and reports v6's problems as before. The two must agree
/// on every document the walk calls valid (metaschema_fast_test.cpp checks that on the JSON
/// Schema Test Suite's schemas and on mutations of them).

#include "src/render/go/value.hpp"

namespace ejob::render::helm {

/// True when `schema` certainly satisfies the standard metaschema of `draft` (7, 2019 or 2020;
/// drafts 4 and 6 are never certain).
bool surely_valid_against_metaschema(const go::Value& schema, int draft);

/// Whether a finite double is a whole number, as v6 counts a JSON integer (every double from
/// 2^53 on is one).
bool is_whole_number(double f);

/// A JSON number's value (any Go integer or float64).
double number_of(const go::Value& v);

/// Tests only: whether check_against_metaschema may trust the walk above (on by default), so
/// that a test can compare its answers with and without it.
void set_metaschema_fast_path(bool on);
bool metaschema_fast_path();

}  // namespace ejob::render::helm
