#pragma once
/// Did-you-mean: the valid name nearest to a mistyped one, for job-file keys, commands and
/// flags alike.

#include <string>
#include <string_view>
#include <vector>

namespace ejob {

/// The candidate nearest to the mistyped `typed` by edit distance, a candidate that extends
/// or shortens it winning ties (`gpu` → `gpus`, not `cpu`); "" when none is within
/// max(2, |typed|/3) edits, too far to be a likely typo.
std::string nearest_spelling(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace ejob
