#include "src/util/spelling.hpp"

#include <algorithm>

namespace ejob {
namespace {

/// Levenshtein distance.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// Edit distance in half steps, half a step less for a name that extends or shortens `typed`.
std::size_t closeness(std::string_view typed, std::string_view name) {
  const bool prefix = name.starts_with(typed) || typed.starts_with(name);
  return distance(typed, name) * 2 - (prefix ? 1 : 0);
}

}  // namespace

std::string nearest_spelling(std::string_view typed, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_score = (std::max<std::size_t>(2, typed.size() / 3) + 1) * 2;
  for (const std::string& name : candidates)
    if (const std::size_t score = closeness(typed, name); score < best_score)
      best_score = score, best = name;
  return best;
}

}  // namespace ejob
