/// `ejob completion bash|zsh|fish`: the script a shell sources for Tab completion, and the
/// hidden `ejob __complete WORD... CURRENT` the scripts ask (cli/complete.hpp answers it,
/// src/job/completion_values.hpp supplies contexts, namespaces and job names).
///   bash: source <(ejob completion bash)    (needs bash-completion for `complete -o`)
///   zsh:  ejob completion zsh > "${fpath[1]}/_ejob"   (or source it after compinit)
///   fish: ejob completion fish > ~/.config/fish/completions/ejob.fish

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/complete.hpp"
#include "src/job/completion_values.hpp"

namespace ejob::cli {
namespace {

// The scripts run the ejob the user typed (the first word), so a build's ejob completes
// itself. `:files` from ejob means: offer file names.
constexpr const char* k_bash = R"(# ejob completion for bash: source <(ejob completion bash)
_ejob() {
  local line files=0
  local -a found=()
  while IFS= read -r line; do
    if [ "$line" = :files ]; then files=1; elif [ -n "$line" ]; then found+=("$line"); fi
  done < <("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=("${found[@]}")
  if [ ${#found[@]} -eq 0 ] && [ $files -eq 1 ]; then
    compopt -o default 2>/dev/null
  fi
}
complete -F _ejob ejob
)";

constexpr const char* k_zsh = R"(#compdef ejob
# ejob completion for zsh: ejob completion zsh > "${fpath[1]}/_ejob", or source it after compinit
_ejob() {
  local line files=0
  local -a found
  for line in "${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    if [[ $line == :files ]]; then files=1; elif [[ -n $line ]]; then found+=("$line"); fi
  done
  if (( ${#found} )); then
    compadd -- "${found[@]}"
  elif (( files )); then
    _files
  fi
}
if [[ $funcstack[1] == _ejob ]]; then _ejob "$@"; else compdef _ejob ejob; fi
)";

constexpr const char* k_fish =
    R"(# ejob completion for fish: ejob completion fish > ~/.config/fish/completions/ejob.fish
function __ejob_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l files 0
    for line in ($words[1] __complete $words[2..-1] "$current" 2>/dev/null)
        if test "$line" = :files
            set files 1
        else if test -n "$line"
            echo $line
        end
    end
    if test $files -eq 1
        __fish_complete_path "$current"
    end
end
complete -c ejob -f -a '(__ejob_complete)'
)";

/// The cluster flags already typed (a --kubeconfig or --context changes what is offered).
job::KubeFlags typed_kube_flags(const std::vector<std::string>& words) {
  job::KubeFlags flags;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "--kubeconfig") flags.kubeconfig = words[i + 1];
    if (words[i] == "--context") flags.context = words[i + 1];
    if (words[i] == "-n" || words[i] == "--namespace") flags.name_space = words[i + 1];
  }
  return flags;
}

}  // namespace

std::string answer_completion(const std::vector<std::string>& words) {
  const std::unique_ptr<CLI::App> app = make_app(k_commands);
  const job::KubeFlags kube = typed_kube_flags(words);
  DynamicValues values;
  values.contexts = [&] { return job::context_names(kube); };
  values.namespaces = [&] { return job::namespace_names(kube); };
  values.job_names = [&] { return job::job_names(kube, std::chrono::milliseconds(1500)); };
  return completion_lines(complete_words(*app, words, values));
}

void register_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("completion", "Print the Tab-completion script of bash, zsh or fish");
  cmd->add_option("shell", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  cmd->footer(
      "bash: source <(ejob completion bash)\n"
      "zsh:  ejob completion zsh > \"${fpath[1]}/_ejob\"\n"
      "fish: ejob completion fish > ~/.config/fish/completions/ejob.fish");
  cmd->callback([shell] {
    std::cout << (*shell == "bash" ? k_bash : *shell == "zsh" ? k_zsh : k_fish);
  });
}

}  // namespace ejob::cli
