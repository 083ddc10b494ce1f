// OptionTable: one declarative table per config struct binds the keys of its
// "key=value,key=value" option string to the struct's fields. Each key is declared
// once, with its field, its valid range (numbers) or words (strings) and a line of
// help; parsing (Apply), the canonical string (ToString), the known keys (Has, Keys)
// and the help listing all come from the table:
//
//   inline const OptionTable<PpoConfig> kPpoOptions{
//       {"samples|samples_per_step", &PpoConfig::samples_per_step, "plans per step", AtLeast(1)},
//       {"lr", &PpoConfig::lr, "Adam step", Above(0)},
//       {"include_best", &PpoConfig::include_best, "the best plan joins every batch"}};
//
// The one rule for option strings (every config; errors start "CONTEXT: KEY: "):
//  - "key=value" pairs separated by commas; spaces around keys and values are
//    ignored; an empty string sets nothing. A key may have other names
//    ("samples|samples_per_step": the first is the canonical one).
//  - An unknown key fails, listing the known keys; a key given twice (under the same
//    or another of its names) fails.
//  - Integers are decimal: "1.5", "1e9", "0x10" and "12abc" fail ("expected an
//    integer"). Numbers are finite decimals ("nan" and "inf" fail). Booleans are
//    exactly 0, 1, true or false. Words come from a fixed set.
//  - A number outside its range fails: "CONTEXT: KEY: VALUE is out of range [lo, hi]"
//    (a round bracket marks an end that is excluded, "inf" an end that is not
//    there). An int field is limited to [-2^30, 2^30] unless its range says less,
//    so products of a few of them cannot overflow; int64 and uint64 fields to
//    their type. A word outside its set fails: "... is not one of dot, additive".
//
// Canonical form (ToString): every key under its canonical name, in table order,
// "key=value" joined by ","; integers in decimal, booleans 0 or 1, doubles in the
// shortest decimal form that parses back to the same double, words and strings as
// they are (a string field must not hold "," to round-trip). So
// Apply(ToString(c)) over any config gives c back, and equal configs give equal
// strings: checkpoints use it as the config's identity.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/strings.h"

namespace graphopt {

// The valid values of a number: from lo to hi, each end included unless open.
struct OptionRange {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;

  bool Contains(double v) const;
  // "[1, 64]", "(0, 1]", "[0, inf)".
  std::string ToString() const;
};

inline OptionRange InRange(double lo, double hi) { return {lo, hi, false, false}; }  // [lo, hi]
inline OptionRange AtLeast(double lo) { return {lo, std::numeric_limits<double>::infinity(), false, false}; }
inline OptionRange Above(double lo) { return {lo, std::numeric_limits<double>::infinity(), true, false}; }
inline OptionRange AboveAtMost(double lo, double hi) { return {lo, hi, true, false}; }   // (lo, hi]
inline OptionRange AtLeastBelow(double lo, double hi) { return {lo, hi, false, true}; }  // [lo, hi)

// The words a string option accepts.
struct OptionWords {
  std::vector<std::string> words;
};
inline OptionWords OneOf(std::vector<std::string> words) { return {std::move(words)}; }

// The bound of an int field without a tighter range: [-kOptionIntLimit, kOptionIntLimit].
inline constexpr int64_t kOptionIntLimit = int64_t{1} << 30;

// The rule's value parsers, for option tables and for other readers of user values
// (command-line flags, model parameters). `where` starts the error message.
// "WHERE: VALUE is out of range RANGE".
Status OutOfRangeError(const std::string& where, const std::string& value, const std::string& range);
// A decimal integer in [lo, hi].
StatusOr<int64_t> ParseIntInRange(const std::string& text, const std::string& where, int64_t lo, int64_t hi);
StatusOr<uint64_t> ParseUintInRange(const std::string& text, const std::string& where, uint64_t lo, uint64_t hi);
// A finite number in `range`.
StatusOr<double> ParseNumberInRange(const std::string& text, const std::string& where, const OptionRange& range);
// One of `words`, exactly.
StatusOr<std::string> ParseWord(const std::string& text, const std::string& where,
                                const std::vector<std::string>& words);
// The integers of `range` that lie in [type_lo, type_hi], as a closed range
// (lo > hi if there are none).
std::pair<int64_t, int64_t> IntegerBounds(const OptionRange& range, int64_t type_lo, int64_t type_hi);
std::pair<uint64_t, uint64_t> UnsignedBounds(const OptionRange& range);
std::string IntRangeText(int64_t lo, int64_t hi);  // "[lo, hi]"
std::string UintRangeText(uint64_t lo, uint64_t hi);
// For help listings: "integer", "integer >= 1", "integer in [0, 30]" (an end at the
// type's bound is left out); "number", "number > 0", "number in [0, 1)".
std::string IntDomain(int64_t lo, int64_t hi, int64_t type_lo, int64_t type_hi);
std::string NumberDomain(const OptionRange& range);

// An option whose value needs its own parser (e.g. "tasks=placement+fusion"): parse
// sets the field from the value (its errors get "CONTEXT: KEY: " in front), format
// gives the canonical text, which parse must accept. domain says what values are
// valid, for the help listing.
template <class Config>
struct OptionCodec {
  std::function<Status(const std::string& value, Config* config)> parse;
  std::function<std::string(const Config& config)> format;
  std::string domain;
};

// One entry of an OptionTable: its names ("name|alias|..."), the field it binds, the
// valid values and a line of help. Fields may be int, int64_t, uint64_t, double,
// bool or std::string members of Config, or members of a struct member of Config
// (one or two levels down).
template <class Config>
class Option {
 public:
  template <class T>
  Option(const std::string& names, T Config::*field, const std::string& help, OptionRange range = {})
      : Option(names, help) {
    Bind<T>([field](auto* c) { return &(c->*field); }, range);
  }
  template <class Outer, class T>
  Option(const std::string& names, Outer Config::*outer, T Outer::*field, const std::string& help,
         OptionRange range = {})
      : Option(names, help) {
    Bind<T>([outer, field](auto* c) { return &((c->*outer).*field); }, range);
  }
  template <class Outer, class Inner, class T>
  Option(const std::string& names, Outer Config::*outer, Inner Outer::*inner, T Inner::*field, const std::string& help,
         OptionRange range = {})
      : Option(names, help) {
    Bind<T>([outer, inner, field](auto* c) { return &(((c->*outer).*inner).*field); }, range);
  }
  Option(const std::string& names, std::string Config::*field, const std::string& help, OptionWords words)
      : Option(names, help) {
    std::string list;
    for (const std::string& w : words.words) list += (list.empty() ? "" : ", ") + w;
    domain_ = "one of " + list;
    set_ = [field, words](const std::string& v, Config* c, const std::string& where) -> Status {
      GO_ASSIGN_OR_RETURN(c->*field, ParseWord(v, where, words.words));
      return Status::Ok();
    };
    get_ = [field](const Config& c) { return c.*field; };
    check_ = [field, words](const Config& c, const std::string& where) {
      return ParseWord(c.*field, where, words.words).status();
    };
  }
  Option(const std::string& names, OptionCodec<Config> codec, const std::string& help) : Option(names, help) {
    domain_ = codec.domain;
    auto parse = codec.parse;
    set_ = [parse](const std::string& v, Config* c, const std::string& where) {
      return parse(v, c).WithContext(where);
    };
    get_ = codec.format;
  }

  // The canonical name first, then the others.
  const std::vector<std::string>& names() const { return names_; }
  const std::string& help() const { return help_; }
  // "integer >= 1", "number in (0, 1]", "0 or 1", "one of dot, additive", ...
  const std::string& domain() const { return domain_; }
  // A bool field (its value is 0 or 1; as a command-line flag, given bare).
  bool boolean() const { return boolean_; }
  // Parses `value` into the field of *c; errors start with `where`.
  Status Set(const std::string& value, Config* c, const std::string& where) const { return set_(value, c, where); }
  // The field's value in canonical form.
  std::string Get(const Config& c) const { return get_(c); }
  // OK if the field's value is valid (in range, one of the words); custom options
  // are checked by their config's own Validate.
  Status Check(const Config& c, const std::string& where) const { return check_ ? check_(c, where) : Status::Ok(); }

 private:
  Option(const std::string& names, const std::string& help) : names_(Split(names, '|')), help_(help) {
    for (const std::string& n : names_)
      GO_CHECK_MSG(!n.empty() && n == Trim(n), "bad option name in \"" + names + "\"");
  }

  template <class T, class Field>
  void Bind(Field field, const OptionRange& range) {
    if constexpr (std::is_same_v<T, bool>) {
      domain_ = "0 or 1";
      boolean_ = true;
      set_ = [field](const std::string& v, Config* c, const std::string& where) -> Status {
        GO_ASSIGN_OR_RETURN(*field(c), ParseBool(v, where));
        return Status::Ok();
      };
      get_ = [field](const Config& c) { return std::string(*field(&c) ? "1" : "0"); };
    } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t>) {
      constexpr bool kNarrow = std::is_same_v<T, int>;
      constexpr int64_t kTypeLo = kNarrow ? -kOptionIntLimit : std::numeric_limits<int64_t>::min();
      constexpr int64_t kTypeHi = kNarrow ? kOptionIntLimit : std::numeric_limits<int64_t>::max();
      const auto [lo, hi] = IntegerBounds(range, kTypeLo, kTypeHi);
      domain_ = IntDomain(lo, hi, kTypeLo, kTypeHi);
      set_ = [field, lo = lo, hi = hi](const std::string& v, Config* c, const std::string& where) -> Status {
        GO_ASSIGN_OR_RETURN(const int64_t x, ParseIntInRange(v, where, lo, hi));
        *field(c) = static_cast<T>(x);
        return Status::Ok();
      };
      get_ = [field](const Config& c) { return std::to_string(*field(&c)); };
      check_ = [field, lo = lo, hi = hi](const Config& c, const std::string& where) {
        const int64_t x = *field(&c);
        return x < lo || x > hi ? OutOfRangeError(where, std::to_string(x), IntRangeText(lo, hi)) : Status::Ok();
      };
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      const auto [lo, hi] = UnsignedBounds(range);
      domain_ = lo == 0 && hi == std::numeric_limits<uint64_t>::max() ? std::string("integer >= 0")
                                                                      : "integer in " + UintRangeText(lo, hi);
      set_ = [field, lo = lo, hi = hi](const std::string& v, Config* c, const std::string& where) -> Status {
        GO_ASSIGN_OR_RETURN(*field(c), ParseUintInRange(v, where, lo, hi));
        return Status::Ok();
      };
      get_ = [field](const Config& c) { return std::to_string(*field(&c)); };
      check_ = [field, lo = lo, hi = hi](const Config& c, const std::string& where) {
        const uint64_t x = *field(&c);
        return x < lo || x > hi ? OutOfRangeError(where, std::to_string(x), UintRangeText(lo, hi)) : Status::Ok();
      };
    } else if constexpr (std::is_same_v<T, double>) {
      domain_ = NumberDomain(range);
      set_ = [field, range](const std::string& v, Config* c, const std::string& where) -> Status {
        GO_ASSIGN_OR_RETURN(*field(c), ParseNumberInRange(v, where, range));
        return Status::Ok();
      };
      get_ = [field](const Config& c) { return FormatDouble(*field(&c)); };
      check_ = [field, range](const Config& c, const std::string& where) {
        const double x = *field(&c);
        return std::isfinite(x) && range.Contains(x) ? Status::Ok()
                                                     : OutOfRangeError(where, FormatDouble(x), range.ToString());
      };
    } else {
      static_assert(std::is_same_v<T, std::string>,
                    "an option binds an int, int64_t, uint64_t, double, bool or string");
      domain_ = "text";
      set_ = [field](const std::string& v, Config* c, const std::string&) {
        *field(c) = v;
        return Status::Ok();
      };
      get_ = [field](const Config& c) { return *field(&c); };
    }
  }

  std::vector<std::string> names_;
  std::string help_;
  std::string domain_;
  bool boolean_ = false;
  std::function<Status(const std::string&, Config*, const std::string&)> set_;
  std::function<std::string(const Config&)> get_;
  std::function<Status(const Config&, const std::string&)> check_;
};

// A key that was renamed stays known, refused: given, it is an error naming the key it
// became, so that an old option string fails loudly instead of meaning something else.
struct RenamedOption {
  std::string before;  // the key as it was
  std::string now;     // the option's name now
};

// The options of one config struct (the header comment above has the rule). Names
// are unique across the table (checked when it is built).
template <class Config>
class OptionTable {
 public:
  OptionTable(std::initializer_list<Option<Config>> options, std::vector<RenamedOption> renamed = {})
      : options_(options), renamed_(std::move(renamed)) {
    for (size_t i = 0; i < options_.size(); ++i) {
      for (const std::string& name : options_[i].names()) {
        GO_CHECK_MSG(Find(name) == &options_[i], "option \"" + name + "\" declared twice");
      }
    }
    for (const RenamedOption& r : renamed_) {
      GO_CHECK_MSG(Find(r.before) == nullptr && Find(r.now) != nullptr,
                   "renamed option \"" + r.before + "\": the old name is taken or \"" + r.now + "\" unknown");
    }
  }

  // Parses "key=value,..." over *c. context names the string in errors ("PPO
  // config"). On failure *c is unchanged.
  Status Apply(const std::string& text, Config* c, const std::string& context) const {
    GO_ASSIGN_OR_RETURN(const auto values, ParseKeyValues(text, context));
    Config updated = *c;
    std::vector<const std::string*> given(options_.size(), nullptr);
    for (const auto& [key, value] : values) {
      const Option<Config>* option = Find(key);
      if (option == nullptr) return UnknownKey(key, context);
      const size_t i = static_cast<size_t>(option - options_.data());
      if (given[i] != nullptr) {
        return InvalidArgument(context + ": '" + key + "' given twice (also as '" + *given[i] + "')");
      }
      given[i] = &key;
      GO_RETURN_IF_ERROR(option->Set(value, &updated, context + ": " + key));
    }
    *c = std::move(updated);
    return Status::Ok();
  }
  // Apply over the defaults of Config.
  StatusOr<Config> FromString(const std::string& text, const std::string& context) const {
    Config c{};
    GO_RETURN_IF_ERROR(Apply(text, &c, context));
    return c;
  }
  // Sets one key (any of its names) of *c; fails on an unknown key or a bad value.
  Status Set(const std::string& key, const std::string& value, Config* c, const std::string& context) const {
    const Option<Config>* option = Find(key);
    if (option == nullptr) return UnknownKey(key, context);
    return option->Set(value, c, context + ": " + key);
  }
  // The first field outside its range or words, as Apply would report it.
  Status Check(const Config& c, const std::string& context) const {
    for (const Option<Config>& o : options_) GO_RETURN_IF_ERROR(o.Check(c, context + ": " + o.names()[0]));
    return Status::Ok();
  }
  // The canonical form (header comment).
  std::string ToString(const Config& c) const {
    std::string out;
    for (const Option<Config>& o : options_) out += (out.empty() ? "" : ",") + o.names()[0] + "=" + o.Get(c);
    return out;
  }

  // A key of the table, or a renamed one (which Apply and Set refuse, naming the new).
  bool Has(const std::string& key) const { return Find(key) != nullptr || Renamed(key) != nullptr; }
  // The canonical names, in table order.
  std::vector<std::string> Keys() const {
    std::vector<std::string> keys;
    for (const Option<Config>& o : options_) keys.push_back(o.names()[0]);
    return keys;
  }
  // "hidden, samples (or samples_per_step), ...".
  std::string KnownKeys() const {
    std::string out;
    for (const Option<Config>& o : options_) {
      out += (out.empty() ? "" : ", ") + o.names()[0];
      for (size_t i = 1; i < o.names().size(); ++i) out += (i == 1 ? " (or " : ", ") + o.names()[i];
      if (o.names().size() > 1) out += ")";
    }
    return out;
  }
  // One line per option: "  key=default  help (domain; also: alias)", the defaults
  // taken from `defaults`.
  std::string Help(const Config& defaults = Config{}) const {
    std::string out;
    for (const Option<Config>& o : options_) {
      std::string left = "  " + o.names()[0] + "=" + o.Get(defaults);
      if (left.size() < 32) left.resize(32, ' ');
      std::string aside = o.domain();
      for (size_t i = 1; i < o.names().size(); ++i) aside += (i == 1 ? "; also: " : ", ") + o.names()[i];
      out += left + " " + o.help() + (aside.empty() ? "" : " (" + aside + ")") + "\n";
    }
    return out;
  }
  // A Markdown table, one row per option: key (and aliases), default (from
  // `defaults`), range, meaning.
  std::string Markdown(const Config& defaults = Config{}) const {
    auto cell = [](std::string text) {
      std::string out;
      for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
      return out;
    };
    std::string out = "| key | default | range | meaning |\n|---|---|---|---|\n";
    for (const Option<Config>& o : options_) {
      std::string key = "`" + o.names()[0] + "`";
      for (size_t i = 1; i < o.names().size(); ++i) key += " or `" + o.names()[i] + "`";
      out += "| " + key + " | `" + cell(o.Get(defaults)) + "` | " + cell(o.domain()) + " | " + cell(o.help()) + " |\n";
    }
    for (size_t i = 0; i < renamed_.size(); ++i) {
      out += std::string(i == 0 ? "\nRenamed keys, refused with their new name:" : ",") + " `" + renamed_[i].before +
             "` (now `" + renamed_[i].now + "`)" + (i + 1 == renamed_.size() ? ".\n" : "");
    }
    return out;
  }
  const std::vector<Option<Config>>& options() const { return options_; }

 private:
  const Option<Config>* Find(const std::string& key) const {
    for (const Option<Config>& o : options_) {
      for (const std::string& name : o.names()) {
        if (name == key) return &o;
      }
    }
    return nullptr;
  }
  const RenamedOption* Renamed(const std::string& key) const {
    for (const RenamedOption& r : renamed_) {
      if (r.before == key) return &r;
    }
    return nullptr;
  }
  Status UnknownKey(const std::string& key, const std::string& context) const {
    if (const RenamedOption* r = Renamed(key)) {
      return InvalidArgument(context + ": the key \"" + key + "\" is now \"" + r->now + "\"");
    }
    return InvalidArgument(context + ": unknown key \"" + key + "\" (known: " + KnownKeys() + ")");
  }

  std::vector<Option<Config>> options_;
  std::vector<RenamedOption> renamed_;
};

}  // namespace graphopt
