// Declared --config.file sections. A section declares each key once: name,
// value type with its range, default (the config struct's own initializer),
// one line of doc, and the struct field it fills. Parsing, the unknown-key,
// duplicate-key and non-scalar-key errors, every message ("<path>: <reason>",
// e.g. "probe.sizes[1]: must be between 1 and 1048576") and the
// configuration reference (rnic_metric_docs --config) come from that one
// declaration. A check that spans keys is a small Then() step.
//
//   config::MapSchema<ProbeConfig> s;
//   s.Key("devices", &ProbeConfig::devices, config::StringList(),
//         "RDMA device names; empty: every device");
//   s.Then([](ProbeConfig& c, const std::string& where) -> Status {...});
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/common/yaml_map.h"
#include "collectors/common/yaml_scalar.h"

namespace rnic::config {

struct KeyDoc;

// A value type as the reference shows it.
struct ValueDoc {
  std::string type;          // "bool", "duration", "list of sizes", "map"
  std::string range;         // "1..10000", "`subnet`, `all`"; empty: any value
  std::vector<KeyDoc> keys;  // a map's keys, or each list item's
  bool keys_per_item = false;  // keys are each item's: "peers[].address"
};

// One key as the reference shows it.
struct KeyDoc {
  std::string name;
  ValueDoc value;
  std::string default_text;  // markdown: `1s`, or words; empty: none
  bool required = false;
  std::string doc;
};

// A value type: `parse` reads a node that is present (null included) and
// names it by `where` in its errors; `show` writes a default as YAML text
// ("" when there is nothing to show).
template <typename V>
struct Value {
  ValueDoc doc;
  std::function<Result<V>(const YAML::Node&, const std::string&)> parse;
  std::function<std::string(const V&)> show;
};

// A key several sections declare alike (the probes' shared settings).
template <typename V>
struct KeyDef {
  std::string name;
  Value<V> value;
  std::string doc;
};

// Text for the reference: "1m30s", "500ms"; sizes "4KiB", "64".
[[nodiscard]] std::string FormatDuration(std::chrono::milliseconds d);
[[nodiscard]] std::string FormatSize(std::uint64_t bytes);
// "4096", "4KiB", "4k", "1MiB", "64M", "1G": bytes.
[[nodiscard]] Result<std::uint64_t> ParseSize(const std::string& text);

// --- Scalars (messages from collectors/common/yaml_scalar.h).
[[nodiscard]] Value<bool> Bool();
[[nodiscard]] Value<std::int64_t> Integer(std::int64_t lo, std::int64_t hi);
[[nodiscard]] Value<double> Number(double lo, double hi);
[[nodiscard]] Value<std::chrono::milliseconds> Duration(
    std::chrono::milliseconds lo, std::chrono::milliseconds hi);
[[nodiscard]] Value<std::string> String();
// A scalar that must not be empty (paths, names).
[[nodiscard]] Value<std::string> NonEmptyString();
// A byte count with an optional binary unit, in [lo, hi].
[[nodiscard]] Value<std::uint64_t> Size(std::uint64_t lo, std::uint64_t hi);

// `v` read, then converted (narrowing an in-range integer, building a
// struct); `to` may refuse with a reason, named by the key's path.
template <typename To, typename From>
[[nodiscard]] Value<To> Convert(
    Value<From> v, std::type_identity_t<std::function<Result<To>(From)>> to,
    std::type_identity_t<std::function<std::string(const To&)>> show =
        nullptr) {
  Value<To> out;
  out.doc = v.doc;
  out.parse = [p = v.parse, to](const YAML::Node& n,
                                const std::string& where) -> Result<To> {
    auto r = p(n, where);
    if (!r) return r.error();
    auto c = to(std::move(*r));
    if (!c) return yaml::KeyError(where, c.error().message);
    return c;
  };
  if (show) {
    out.show = std::move(show);
  } else {
    out.show = [](const To&) { return std::string(); };
  }
  return out;
}

// An integer field of any width: Integer() narrowed.
template <std::integral I>
[[nodiscard]] Value<I> Int(std::int64_t lo, std::int64_t hi) {
  return Convert<I, std::int64_t>(
      Integer(lo, hi),
      [](std::int64_t v) -> Result<I> { return static_cast<I>(v); },
      [](const I& v) { return std::to_string(v); });
}

// One of `names` (YAML text -> value); "must be a or b, not 'c'".
template <typename E>
[[nodiscard]] Value<E> Enum(std::vector<std::pair<std::string, E>> names) {
  Value<E> out;
  std::string listed, range;
  for (std::size_t i = 0; i < names.size(); ++i) {
    listed += (i == 0                  ? ""
               : i + 1 == names.size() ? " or "
                                       : ", ") +
              names[i].first;
    range += (i == 0 ? "`" : ", `") + names[i].first + "`";
  }
  out.doc = {"enum", range, {}, false};
  out.parse = [names, listed](const YAML::Node& n,
                              const std::string& where) -> Result<E> {
    auto t = yaml::Text(n, where);
    if (!t) return t.error();
    for (const auto& [name, v] : names) {
      if (name == *t) return v;
    }
    return yaml::KeyError(where, "must be " + listed + ", not '" + *t + "'");
  };
  out.show = [names](const E& v) {
    for (const auto& [name, e] : names) {
      if (e == v) return name;
    }
    return std::string();
  };
  return out;
}

// A list of `item`s, each named "<where>[i]". An empty value (`key:`) is
// an empty list; `non_empty` refuses both with "must not be empty".
template <typename V>
[[nodiscard]] Value<std::vector<V>> List(Value<V> item,
                                         bool non_empty = false) {
  Value<std::vector<V>> out;
  out.doc = item.doc;
  out.doc.type = "list of " + item.doc.type + "s";
  out.doc.keys_per_item = !item.doc.keys.empty();
  out.parse = [p = item.parse, non_empty](
                  const YAML::Node& n,
                  const std::string& where) -> Result<std::vector<V>> {
    std::vector<V> v;
    if (!n.IsNull()) {
      auto r = yaml::List(n, where, p);
      if (!r) return r.error();
      v = std::move(*r);
    }
    if (non_empty && v.empty()) {
      return yaml::KeyError(where, "must not be empty");
    }
    return v;
  };
  out.show = [s = item.show](const std::vector<V>& v) {
    std::string t = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      t += (i ? ", " : "") + s(v[i]);
    }
    return t + "]";
  };
  return out;
}

[[nodiscard]] Value<std::vector<std::string>> StringList();
// A map of names to text (labels): "<where>.<name>" names each value.
[[nodiscard]] Value<std::map<std::string, std::string>> StringMap();

// `v`, or nothing when the key is absent.
template <typename V>
[[nodiscard]] Value<std::optional<V>> Optional(Value<V> v) {
  Value<std::optional<V>> out;
  out.doc = v.doc;
  out.parse = [p = v.parse](
                  const YAML::Node& n,
                  const std::string& where) -> Result<std::optional<V>> {
    auto r = p(n, where);
    if (!r) return r.error();
    return std::optional<V>(std::move(*r));
  };
  out.show = [](const std::optional<V>&) { return std::string(); };
  return out;
}

// The keys of a map, declared once each, bound to the fields of T.
template <typename T>
class MapSchema {
 public:
  // The key's value goes to `field`; its default is T{}'s.
  template <typename V>
  MapSchema& Key(std::string name, V T::*field, Value<V> value,
                 std::string doc) {
    const std::string yaml = value.show ? value.show(T{}.*field) : "";
    return Add(std::move(name), std::move(value), std::move(doc),
               yaml.empty() ? "" : "`" + yaml + "`",
               [field](T& t, V&& v) { t.*field = std::move(v); });
  }
  template <typename V>
  MapSchema& Key(const KeyDef<V>& def, V T::*field) {
    return Key(def.name, field, def.value, def.doc);
  }
  // The key's value is stored by `set` (several fields, or one of another
  // type); the reference shows no default unless Default() gives one.
  template <typename V>
  MapSchema& Key(std::string name,
                 std::type_identity_t<std::function<void(T&, V&&)>> set,
                 Value<V> value, std::string doc) {
    return Add(std::move(name), std::move(value), std::move(doc), "",
               std::move(set));
  }
  // The key declared last must be given: "<where>: needs <what>"
  // (what: "an address").
  MapSchema& Required(std::string what) {
    fields_.back().needs = std::move(what);
    fields_.back().doc.required = true;
    return *this;
  }
  // The reference's default for the key declared last, in words, where
  // the field's initializer does not say it ("the event").
  MapSchema& Default(std::string text) {
    fields_.back().doc.default_text = std::move(text);
    return *this;
  }
  // After every key, in order of declaration: checks that span keys and
  // values derived from others. Errors name their key ("<where>.<key>: ").
  MapSchema& Then(std::function<Status(T&, const std::string& where)> step) {
    then_.push_back(std::move(step));
    return *this;
  }

  // Reads `node` (null or absent: no key given) into `out`, whose fields
  // keep their values where no key is given. Keys are read in order of
  // declaration, so the first error is the same whatever the file's order.
  [[nodiscard]] Status ParseInto(const YAML::Node& node,
                                 const std::string& where, T& out) const {
    auto keys = MapKeys(node, where);
    if (!keys) return keys.error();
    for (const auto& k : *keys) {
      bool known = false;
      for (const auto& f : fields_) known = known || f.doc.name == k;
      if (!known) return yaml::KeyError(where + "." + k, "unknown key");
    }
    for (const auto& f : fields_) {
      const YAML::Node n = keys->empty() ? YAML::Node() : node[f.doc.name];
      if (keys->empty() || !n) {
        if (!f.needs.empty()) return yaml::KeyError(where, "needs " + f.needs);
        continue;
      }
      if (Status st = f.parse(n, where + "." + f.doc.name, out); !st) {
        return st;
      }
    }
    for (const auto& step : then_) {
      if (Status st = step(out, where); !st) return st;
    }
    return Status::Ok();
  }
  [[nodiscard]] Result<T> Parse(const YAML::Node& node,
                                const std::string& where) const {
    T out{};
    if (Status st = ParseInto(node, where, out); !st) return st.error();
    return out;
  }
  [[nodiscard]] std::vector<KeyDoc> Docs() const {
    std::vector<KeyDoc> out;
    for (const auto& f : fields_) out.push_back(f.doc);
    return out;
  }

 private:
  struct Field {
    KeyDoc doc;
    std::string needs;  // non-empty: required
    std::function<Status(const YAML::Node&, const std::string&, T&)> parse;
  };

  template <typename V>
  MapSchema& Add(std::string name, Value<V> value, std::string doc,
                 std::string shown,
                 std::type_identity_t<std::function<void(T&, V&&)>> set) {
    Field f;
    f.doc = KeyDoc{std::move(name), value.doc, std::move(shown), false,
                   std::move(doc)};
    f.parse = [p = std::move(value.parse), set = std::move(set)](
                  const YAML::Node& n, const std::string& where,
                  T& t) -> Status {
      auto v = p(n, where);
      if (!v) return v.error();
      set(t, std::move(*v));
      return Status::Ok();
    };
    fields_.push_back(std::move(f));
    return *this;
  }

  std::vector<Field> fields_;
  std::vector<std::function<Status(T&, const std::string&)>> then_;
};

// A map value read by `schema` (defaults where keys are absent).
template <typename T>
[[nodiscard]] Value<T> Map(MapSchema<T> schema, std::string type = "map") {
  Value<T> out;
  out.doc = {std::move(type), "", schema.Docs(), false};
  out.parse = [s = std::move(schema)](const YAML::Node& n,
                                      const std::string& where) {
    return s.Parse(n, where);
  };
  out.show = [](const T&) { return std::string(); };
  return out;
}

// A top-level section of --config.file as the reference shows it.
struct SectionDoc {
  std::string name;
  std::string doc;  // one paragraph, markdown
  ValueDoc value;
};

// A top-level section: `value` read at path `name`.
template <typename T>
struct Section {
  std::string name;
  std::string doc;
  Value<T> value;

  // Null or absent: the defaults (an empty map or list).
  [[nodiscard]] Result<T> Parse(const YAML::Node& node) const {
    return value.parse(node ? node : YAML::Node(), name);
  }
  [[nodiscard]] SectionDoc Doc() const { return {name, doc, value.doc}; }
};

// The section's reference in markdown: a heading, its paragraph and one
// table row per key (nested keys as "a.b", list items' as "a[].b").
[[nodiscard]] std::string Markdown(const SectionDoc& section);

}  // namespace rnic::config
