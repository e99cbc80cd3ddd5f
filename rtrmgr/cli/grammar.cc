#include "rtrmgr/cli/grammar.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::rtrmgr::cli {
namespace {

using Kind = FormNode::Kind;

// Order of Completion::next: plain keywords, "-" options, VALUEs; each by name.
std::tuple<int, std::string_view> SortKey(bool is_value, std::string_view text) {
  return {is_value ? 2 : (!text.empty() && text[0] == '-' ? 1 : 0), text};
}

}  // namespace

absl::StatusOr<Grammar> Grammar::Build(const std::vector<Command>& commands) {
  Grammar g;
  g.AddState();
  for (const Command& command : commands) {
    g.summaries_.push_back(command.summary);
    for (const Form& form : command.forms) {
      absl::StatusOr<FormNode> tree = ParseForm(form.syntax);
      if (!tree.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("command ", command.name, ": ", tree.status().message()));
      }
      const FormNode& first = tree->children.front();
      if (first.kind != Kind::kKeyword || first.text != command.name) {
        return absl::InvalidArgumentError(absl::StrCat("command ", command.name, ": form \"",
                                                       form.syntax, "\" does not start with ",
                                                       command.name));
      }
      const int index = static_cast<int>(g.forms_.size());
      g.forms_.push_back({form.help, static_cast<int>(g.summaries_.size()) - 1});
      g.states_[g.Compile(*tree, 0, index)].accepts = index;
    }
  }
  return g;
}

int Grammar::AddState() {
  states_.emplace_back();
  return static_cast<int>(states_.size()) - 1;
}

int Grammar::Compile(const FormNode& node, int from, int form) {
  switch (node.kind) {
    case Kind::kKeyword:
    case Kind::kValue: {
      const int to = AddState();
      states_[from].moves.push_back({node.text, node.kind == Kind::kValue, form, to});
      return to;
    }
    case Kind::kSequence: {
      int at = from;
      for (const FormNode& child : node.children) at = Compile(child, at, form);
      return at;
    }
    case Kind::kOptional:
    case Kind::kChoice: {
      const int end = AddState();
      if (node.kind == Kind::kOptional) states_[from].epsilon.push_back(end);
      for (const FormNode& alternative : node.children) {
        const int alternative_end = Compile(alternative, from, form);
        states_[alternative_end].epsilon.push_back(end);
      }
      return end;
    }
  }
  return from;
}

std::vector<int> Grammar::Closure(std::vector<int> states) const {
  std::set<int> seen(states.begin(), states.end());
  for (size_t i = 0; i < states.size(); ++i) {
    for (int next : states_[states[i]].epsilon) {
      if (seen.insert(next).second) states.push_back(next);
    }
  }
  return {seen.begin(), seen.end()};
}

std::vector<int> Grammar::Walk(const std::vector<std::string>& words) const {
  std::vector<int> at = Closure({0});
  for (const std::string& word : words) {
    std::vector<int> keyword_to, value_to;
    for (int s : at) {
      for (const Token& t : states_[s].moves) {
        if (t.is_value) {
          value_to.push_back(t.to);
        } else if (t.text == word) {
          keyword_to.push_back(t.to);
        }
      }
    }
    at = Closure(keyword_to.empty() ? std::move(value_to) : std::move(keyword_to));
    if (at.empty()) break;
  }
  return at;
}

std::vector<Grammar::Next> Grammar::Moves(const std::vector<int>& states,
                                          std::string_view partial) const {
  std::map<std::tuple<int, std::string_view>, Next> by_key;
  for (int s : states) {
    for (const Token& t : states_[s].moves) {
      if (!t.is_value && !t.text.starts_with(partial)) continue;
      Next& next = by_key[SortKey(t.is_value, t.text)];
      next.text = t.text;
      next.is_value = t.is_value;
      next.forms.push_back(t.form);
      next.to.push_back(t.to);
    }
  }
  std::vector<Next> out;
  for (auto& [key, next] : by_key) {
    std::sort(next.forms.begin(), next.forms.end());
    next.forms.erase(std::unique(next.forms.begin(), next.forms.end()), next.forms.end());
    out.push_back(std::move(next));
  }
  return out;
}

std::string Grammar::HelpFor(bool first_word, const Next& next) const {
  const FormInfo& form = forms_[next.forms.front()];
  if (first_word) return summaries_[form.command];
  if (next.forms.size() == 1 || next.is_value) return form.help;
  // A keyword several forms share: the one form that may end after it, else what may follow.
  const std::vector<int> after = Closure(next.to);
  std::set<int> ending;
  for (int s : after) {
    if (states_[s].accepts >= 0) ending.insert(states_[s].accepts);
  }
  if (ending.size() == 1) return forms_[*ending.begin()].help;
  std::vector<std::string> words;
  for (const Next& n : Moves(after, "")) words.push_back(n.text);
  return absl::StrJoin(words, " | ");
}

Completion Grammar::Complete(const std::vector<std::string>& words,
                             std::string_view partial) const {
  Completion out;
  const std::vector<int> at = Walk(words);
  if (at.empty()) return out;
  out.matched = true;
  out.complete = std::any_of(at.begin(), at.end(), [&](int s) { return states_[s].accepts >= 0; });
  for (const Next& next : Moves(at, partial)) {
    out.next.push_back({next.text, next.is_value, HelpFor(words.empty(), next)});
  }
  return out;
}

}  // namespace sluice::rtrmgr::cli
