#include "eval/results.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "baselines/baseline.h"
#include "core/files.h"
#include "core/json_fields.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

constexpr const char* kFormat = "graphopt-results";
constexpr int kVersion = 2;

// Sort key of a method column: (group, index in its list or 0, name).
struct ColumnKey {
  int group = 3;
  int index = 0;
  std::string name;
  bool operator<(const ColumnKey& o) const {
    if (group != o.group) return group < o.group;
    if (index != o.index) return index < o.index;
    return name < o.name;
  }
};

ColumnKey KeyOf(const std::string& method) {
  const std::vector<std::string>& baselines = BaselineNames();
  std::string base = method;
  int group = 0;
  const size_t suffix = std::string(kFusionSuffix).size();
  if (method.size() > suffix && method.compare(method.size() - suffix, suffix, kFusionSuffix) == 0) {
    base = method.substr(0, method.size() - suffix);
    group = 1;
  }
  const auto it = std::find(baselines.begin(), baselines.end(), base);
  if (it != baselines.end()) return ColumnKey{group, static_cast<int>(it - baselines.begin()), method};
  const std::vector<std::string>& tasks = TaskConfigurationNames();
  const auto t = std::find(tasks.begin(), tasks.end(), method);
  if (t != tasks.end()) return ColumnKey{2, static_cast<int>(t - tasks.begin()), method};
  return ColumnKey{3, 0, method};
}

Json MethodToJson(const MethodResult& m) {
  Json j = Json::object();
  j["step_time_us"] = m.step_time_us;
  j["oom"] = m.oom;
  j["peak_memory"] = m.peak_memory;
  j["plan_seconds"] = m.plan_seconds;
  j["error"] = m.error;
  return j;
}

// Typed field access with errors naming the file and the place in it.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Status Fail(const std::string& where, const std::string& what) const {
    return ParseError(source_ + ": " + where + ": " + what);
  }
  Status Number(const Json& obj, const char* key, const std::string& where, double* out) const {
    if (!obj.contains(key)) return Status::Ok();
    GO_ASSIGN_OR_RETURN(*out, JsonNumber(obj[key], Field(where, key)));
    return Status::Ok();
  }
  // An integer in [lo, hi] that fits T.
  template <typename T>
  Status Integer(const Json& obj, const char* key, const std::string& where, T* out, int64_t lo) const {
    if (!obj.contains(key)) return Status::Ok();
    return JsonIntTo(obj[key], Field(where, key), out, lo);
  }
  // "file: rows[0] ("gnmt-4"): "ops"": the start of an error about one field.
  std::string Field(const std::string& where, const std::string& key) const {
    return source_ + ": " + where + ": \"" + key + "\"";
  }
  Status String(const Json& obj, const char* key, bool required, const std::string& where, std::string* out) const {
    if (!obj.contains(key)) return required ? Fail(where, std::string("missing \"") + key + "\"") : Status::Ok();
    if (!obj[key].is_string()) return Fail(where, std::string("\"") + key + "\" must be a string, got " + obj[key].dump());
    *out = obj[key].get<std::string>();
    return Status::Ok();
  }

 private:
  std::string source_;
};

StatusOr<MethodResult> MethodFromJson(const Json& j, const Reader& reader, const std::string& where) {
  if (!j.is_object()) return reader.Fail(where, "must be an object");
  MethodResult m;
  GO_RETURN_IF_ERROR(reader.Number(j, "step_time_us", where, &m.step_time_us));
  GO_RETURN_IF_ERROR(reader.Number(j, "plan_seconds", where, &m.plan_seconds));
  GO_RETURN_IF_ERROR(reader.String(j, "error", false, where, &m.error));
  if (j.contains("oom")) {
    if (!j["oom"].is_boolean()) return reader.Fail(where, "\"oom\" must be true or false, got " + j["oom"].dump());
    m.oom = j["oom"].get<bool>();
  }
  if (j.contains("peak_memory")) {
    const Json& peaks = j["peak_memory"];
    if (!peaks.is_array()) return reader.Fail(where, "\"peak_memory\" must be an array of byte counts");
    for (size_t i = 0; i < peaks.size(); ++i) {
      // Byte counts; a number written as a double (4.5e9) is rounded, one beyond
      // int64 (1e300) is an error, not undefined behaviour.
      const std::string field = reader.Field(where, "peak_memory") + "[" + std::to_string(i) + "]";
      int64_t bytes = 0;
      if (peaks[i].is_number_float()) {
        GO_ASSIGN_OR_RETURN(const double d, JsonNumber(peaks[i], field, 0, 9.2e18));
        bytes = std::llround(d);
      } else {
        GO_ASSIGN_OR_RETURN(bytes, JsonInt(peaks[i], field, 0));
      }
      m.peak_memory.push_back(bytes);
    }
  }
  return m;
}

StatusOr<RowResult> RowFromJson(const Json& j, const Reader& reader, size_t index) {
  std::string where = "rows[" + std::to_string(index) + "]";
  if (!j.is_object()) return reader.Fail(where, "must be an object");
  RowResult row;
  GO_RETURN_IF_ERROR(reader.String(j, "row", true, where, &row.row));
  where += " (\"" + row.row + "\")";
  GO_RETURN_IF_ERROR(reader.String(j, "label", false, where, &row.label));
  GO_RETURN_IF_ERROR(reader.String(j, "model", true, where, &row.model));
  GO_RETURN_IF_ERROR(reader.String(j, "cluster", true, where, &row.cluster));
  GO_RETURN_IF_ERROR(reader.Integer(j, "devices", where, &row.devices, 0));
  GO_RETURN_IF_ERROR(reader.Integer(j, "ops", where, &row.ops, 0));
  GO_RETURN_IF_ERROR(reader.Number(j, "lower_bound_us", where, &row.lower_bound_us));
  GO_RETURN_IF_ERROR(reader.Number(j, "fitting_bound_us", where, &row.fitting_bound_us));
  GO_RETURN_IF_ERROR(reader.Number(j, "setup_seconds", where, &row.setup_seconds));
  GO_RETURN_IF_ERROR(reader.Number(j, "seconds", where, &row.seconds));
  if (!j.contains("methods") || !j["methods"].is_object()) return reader.Fail(where, "\"methods\" must be an object");
  for (const auto& [name, value] : j["methods"].items()) {
    GO_ASSIGN_OR_RETURN(MethodResult m, MethodFromJson(value, reader, where + ".methods." + name));
    row.methods[name] = std::move(m);
  }
  return row;
}

}  // namespace

const RowResult* SuiteResults::FindRow(const std::string& row) const {
  for (const RowResult& r : rows) {
    if (r.row == row) return &r;
  }
  return nullptr;
}

const std::vector<std::string>& TaskConfigurationNames() {
  static const std::vector<std::string> kNames = {"tf-default", "hp-only", "pl-only",  "pl|sch",
                                                  "pl+sch",     "sch+fu",  "pl|sch|fu", "pl+sch+fu"};
  return kNames;
}

bool MethodColumnLess(const std::string& a, const std::string& b) { return KeyOf(a) < KeyOf(b); }

std::vector<std::string> MethodColumns(const SuiteResults& results) {
  std::set<std::string> names;
  for (const RowResult& row : results.rows) {
    for (const auto& entry : row.methods) names.insert(entry.first);
  }
  std::vector<std::string> columns(names.begin(), names.end());
  std::sort(columns.begin(), columns.end(), MethodColumnLess);
  return columns;
}

std::vector<std::string> MergeResults(const SuiteResults& update, SuiteResults* base) {
  std::vector<std::string> notes;
  int cursor = -1;  // index in base->rows of the last row of update placed
  for (const RowResult& row : update.rows) {
    auto it = std::find_if(base->rows.begin(), base->rows.end(), [&](const RowResult& r) { return r.row == row.row; });
    if (it == base->rows.end()) {
      base->rows.insert(base->rows.begin() + (cursor + 1), row);
      ++cursor;
      continue;
    }
    cursor = static_cast<int>(it - base->rows.begin());
    RowResult& old = *it;
    if (old.model != row.model || old.cluster != row.cluster) {
      std::vector<std::string> dropped;
      for (const auto& entry : old.methods) {
        if (row.methods.count(entry.first) == 0) dropped.push_back(entry.first);
      }
      if (!dropped.empty()) {
        std::string list;
        for (const std::string& d : dropped) list += (list.empty() ? "" : ", ") + d;
        notes.push_back("row " + row.row + ": now " + row.model + " on " + row.cluster + " (was " + old.model + " on " +
                        old.cluster + "); dropped the columns measured on the old setup: " + list);
      }
      old = row;
      continue;
    }
    std::map<std::string, MethodResult> methods = std::move(old.methods);
    for (const auto& [name, result] : row.methods) methods[name] = result;
    old = row;
    old.methods = std::move(methods);
  }
  return notes;
}

Status CheckMergeable(const SuiteResults& update, const SuiteResults& base, const std::string& path) {
  if (base.rows.empty() || (update.decisions == base.decisions && update.judge == base.judge)) return Status::Ok();
  return InvalidArgument(path + " holds a table of decisions \"" + base.decisions + "\" measured by judge " +
                         std::to_string(base.judge) + "; this run is of decisions \"" + update.decisions +
                         "\" by judge " + std::to_string(update.judge) +
                         ": its columns would not compare with the file's (give another --results file)");
}

std::string ResultsToJson(const SuiteResults& results) {
  Json rows = Json::array();
  for (const RowResult& row : results.rows) {
    Json r = Json::object();
    r["row"] = row.row;
    r["label"] = row.label;
    r["model"] = row.model;
    r["cluster"] = row.cluster;
    r["devices"] = row.devices;
    r["ops"] = row.ops;
    r["lower_bound_us"] = row.lower_bound_us;
    if (row.fitting_bound_us > 0) r["fitting_bound_us"] = row.fitting_bound_us;
    r["setup_seconds"] = row.setup_seconds;
    r["seconds"] = row.seconds;
    Json methods = Json::object();
    for (const auto& [name, m] : row.methods) methods[name] = MethodToJson(m);
    r["methods"] = std::move(methods);
    rows.push_back(std::move(r));
  }
  Json j = Json::object();
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["decisions"] = results.decisions;
  j["judge"] = results.judge;
  j["rows"] = std::move(rows);
  return j.dump(2) + "\n";
}

StatusOr<SuiteResults> ResultsFromJson(const std::string& text, const std::string& source) {
  GO_ASSIGN_OR_RETURN(Json j, ParseJsonText(text, source));
  if (!j.is_object()) return ParseError(source + ": a results file must be a JSON object");
  if (!j.contains("format") || j["format"] != kFormat) {
    return ParseError(source + ": \"format\" is " + (j.contains("format") ? j["format"].dump() : std::string("missing")) +
                      ", expected \"" + kFormat + "\"");
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int64_t>() < 1 ||
      j["version"].get<int64_t>() > kVersion) {
    return ParseError(source + ": unsupported results version " + (j.contains("version") ? j["version"].dump() : std::string("(missing)")) +
                      " (this build reads versions 1 and 2)");
  }
  if (!j.contains("rows") || !j["rows"].is_array()) return ParseError(source + ": \"rows\" must be an array");
  const Reader reader(source);
  SuiteResults results;
  if (j["version"].get<int64_t>() >= 2) {
    if (!j.contains("decisions") || !j["decisions"].is_string() ||
        (j["decisions"] != "placement" && j["decisions"] != "all" && j["decisions"] != "as-produced")) {
      return ParseError(source + ": \"decisions\" must be \"placement\", \"all\" or \"as-produced\"");
    }
    results.decisions = j["decisions"].get<std::string>();
    if (!j.contains("judge") || !j["judge"].is_number_integer() || j["judge"].get<int64_t>() < 1 ||
        j["judge"].get<int64_t>() > 1000) {
      return ParseError(source + ": \"judge\" must be an integer from 1 to 1000");
    }
    results.judge = static_cast<int>(j["judge"].get<int64_t>());
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < j["rows"].size(); ++i) {
    GO_ASSIGN_OR_RETURN(RowResult row, RowFromJson(j["rows"][i], reader, i));
    if (!seen.insert(row.row).second) return reader.Fail("rows[" + std::to_string(i) + "]", "row \"" + row.row + "\" appears twice");
    results.rows.push_back(std::move(row));
  }
  return results;
}

StatusOr<SuiteResults> ReadResultsFile(const std::string& path) {
  if (!FileExists(path)) return SuiteResults();
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ResultsFromJson(text, path);
}

Status WriteResultsFile(const SuiteResults& results, const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) return IoError(parent.string() + ": cannot create folder: " + error.message());
  }
  return WriteFileAtomic(path, ResultsToJson(results));
}

}  // namespace graphopt
