// Failpoint modes and data (mongod's FailPoint) and failCommand's rules for the commands it
// catches.
#include "server/admin/fail_points.h"

#include <limits>
#include <random>
#include <string>
#include <utility>

#include "server/admin/client_metadata.h"

namespace cairn::server {

namespace {

// mongod's bsonExtractIntegerField: any number holding an exact 64-bit integer.
Result<int64_t> ExtractInteger(BsonView doc, std::string_view field) {
  bson_iter_t it;
  if (!doc.Find(field, &it)) {
    return Status(ErrorCode::kNoSuchKey, "Missing expected field \"" + std::string(field) + "\"");
  }
  if (!IterIsNumber(&it)) {
    return Status(ErrorCode::kTypeMismatch, "Expected field \"" + std::string(field) +
                                                "\" to have numeric type, but found " +
                                                std::string(BsonTypeName(bson_iter_type(&it))));
  }
  int64_t value = 0;
  if (!IterAsInt64(&it, &value)) {
    return Status(ErrorCode::kBadValue, "Expected field \"" + std::string(field) +
                                            "\" to have a value exactly representable as a 64-bit "
                                            "integer, but found " +
                                            std::string(field) + ": " + ValueToShellString(&it));
  }
  return value;
}

// mongod's bsonExtractBooleanField as failCommand reads it: a bool or a number, by its truth; any
// other type (or none) counts as false.
bool FlagSet(BsonView data, std::string_view field) {
  bson_iter_t it;
  if (!data.Find(field, &it)) return false;
  if (!BSON_ITER_HOLDS_BOOL(&it) && !IterIsNumber(&it)) return false;
  return bson_iter_as_bool(&it);
}

// failCommand's errorCode, when it holds an exact integer (bsonExtractIntegerField succeeds).
std::optional<int64_t> ErrorCodeOf(BsonView data) {
  bson_iter_t it;
  int64_t code = 0;
  if (!data.Find("errorCode", &it) || !IterIsNumber(&it) || !IterAsInt64(&it, &code)) {
    return std::nullopt;
  }
  return code;
}

// The string value of `field`, or "" when it is not a string (BSONObj::getStringField).
std::string_view StringField(BsonView doc, std::string_view field) {
  bson_iter_t it;
  if (!doc.Find(field, &it) || !BSON_ITER_HOLDS_UTF8(&it)) return {};
  return IterUtf8(&it);
}

Result<int64_t> ParseCount(BsonView mode, std::string_view field) {
  CAIRN_ASSIGN_OR_RETURN(int64_t value, ExtractInteger(mode, field));
  if (value < 0) {
    return Status(ErrorCode::kBadValue,
                  "'" + std::string(field) + "' option to 'mode' must be positive");
  }
  if (value > std::numeric_limits<int>::max()) {
    return Status(ErrorCode::kBadValue,
                  "'" + std::string(field) + "' option to 'mode' is too large");
  }
  return value;
}

Result<FailPointMode> ParseMode(BsonView command) {
  bson_iter_t it;
  if (!command.Find("mode", &it)) {
    return Status(ErrorCode::kIllegalOperation,
                  "When setting a failpoint, you must supply a 'mode'");
  }
  FailPointMode mode;
  if (BSON_ITER_HOLDS_UTF8(&it)) {
    const std::string_view name = IterUtf8(&it);
    if (name == "off") return mode;
    if (name == "alwaysOn") {
      mode.kind = FailPointMode::Kind::kAlwaysOn;
      return mode;
    }
    return Status(ErrorCode::kBadValue, "unknown mode: " + std::string(name));
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return Status(ErrorCode::kTypeMismatch, "'mode' must be a string or JSON object");
  }
  const BsonView spec = IterDocument(&it);
  bson_iter_t field;
  if (spec.Find("times", &field)) {
    mode.kind = FailPointMode::Kind::kTimes;
    CAIRN_ASSIGN_OR_RETURN(mode.value, ParseCount(spec, "times"));
  } else if (spec.Find("skip", &field)) {
    mode.kind = FailPointMode::Kind::kSkip;
    CAIRN_ASSIGN_OR_RETURN(mode.value, ParseCount(spec, "skip"));
  } else if (spec.Find("activationProbability", &field)) {
    if (!IterIsNumber(&field)) {
      return Status(ErrorCode::kTypeMismatch,
                    "the 'activationProbability' option to 'mode' must be a double between 0 and "
                    "1");
    }
    double probability = 0;
    IterAsDouble(&field, &probability);
    if (!(probability >= 0 && probability <= 1)) {
      return Status(
          ErrorCode::kBadValue,
          "activationProbability must be between 0.0 and 1.0; found " + ValueToShellString(&field));
    }
    mode.kind = FailPointMode::Kind::kRandom;
    mode.value = static_cast<int32_t>(std::numeric_limits<int32_t>::max() * probability);
  } else {
    return Status(ErrorCode::kBadValue,
                  "'mode' must be one of 'off', 'alwaysOn', '{times:n}', '{skip:n}' or "
                  "'{activationProbability:p}'");
  }
  return mode;
}

// A draw in [0, INT32_MAX] per pass of an activationProbability failpoint.
int64_t Draw() {
  thread_local std::mt19937 engine{std::random_device{}()};
  return std::uniform_int_distribution<int32_t>(0, std::numeric_limits<int32_t>::max())(engine);
}

// The command's namespace as mongod's parseNs gives it: "<db>.<collection>" when the command names
// a collection (its first field a string; getMore's `collection`), else the database.
std::string CommandNamespace(const CommandRequest& request) {
  const std::string_view field = request.name == "getMore" ? "collection" : request.name;
  const std::string_view collection = StringField(request.body, field);
  if (collection.empty()) return std::string(request.db);
  return std::string(request.db) + "." + std::string(collection);
}

// The application name failCommand's appName compares with: the connection's, or, on its first
// hello, the one that hello carries (mongod records it before failCommand looks).
std::string_view AppName(const FailCommandTarget& target) {
  BsonView metadata = target.connection->client_metadata.view();
  bson_iter_t client;
  if (!target.connection->saw_hello && target.request->body.Find("client", &client) &&
      BSON_ITER_HOLDS_DOCUMENT(&client)) {
    metadata = IterDocument(&client);
  }
  return ApplicationName(metadata);
}

bool ListsCommand(BsonView data, const FailCommandTarget& target) {
  bson_iter_t it, names;
  if (!data.Find("failCommands", &it) ||
      (!BSON_ITER_HOLDS_ARRAY(&it) && !BSON_ITER_HOLDS_DOCUMENT(&it)) ||
      !IterDocument(&it).Init(&names)) {
    return false;
  }
  while (bson_iter_next(&names)) {
    if (!BSON_ITER_HOLDS_UTF8(&names)) continue;
    const std::string_view name = IterUtf8(&names);
    if (name == target.def->name) return true;
    const CommandDef* listed = target.find_command ? target.find_command(name) : nullptr;
    if (listed != nullptr && listed->handler == target.def->handler) return true;  // an alias
  }
  return false;
}

}  // namespace

Result<FailPointSettings> ParseFailPointSettings(BsonView command) {
  FailPointSettings settings;
  CAIRN_ASSIGN_OR_RETURN(settings.mode, ParseMode(command));
  bson_iter_t data;
  if (command.Find("data", &data)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&data) && !BSON_ITER_HOLDS_ARRAY(&data)) {
      return Status(ErrorCode::kTypeMismatch, "the 'data' option must be a JSON object");
    }
    settings.data = BsonDoc(IterDocument(&data));
  }
  return settings;
}

int64_t FailPoint::Configure(FailPointSettings settings) {
  MutexLock lock(&mu_);
  mode_ = settings.mode;
  data_ = std::make_shared<const BsonDoc>(std::move(settings.data));
  on_.store(mode_.kind != FailPointMode::Kind::kOff);
  return entered_.load();
}

std::shared_ptr<const BsonDoc> FailPoint::Evaluate(const std::function<bool(BsonView)>& matches) {
  if (!on_.load(std::memory_order_relaxed)) return nullptr;
  MutexLock lock(&mu_);
  if (mode_.kind == FailPointMode::Kind::kOff) return nullptr;
  if (matches && !matches(data_->view())) return nullptr;
  bool hit = false;
  switch (mode_.kind) {
    case FailPointMode::Kind::kOff:
      break;
    case FailPointMode::Kind::kAlwaysOn:
      hit = true;
      break;
    case FailPointMode::Kind::kRandom:
      hit = Draw() < mode_.value;
      break;
    case FailPointMode::Kind::kTimes:
      hit = true;
      if (--mode_.value <= 0) {
        mode_.kind = FailPointMode::Kind::kOff;
        on_.store(false);
      }
      break;
    case FailPointMode::Kind::kSkip:
      // Once the skips are used the count stays at 0, so it never wraps round to skipping again.
      hit = mode_.value <= 0 || --mode_.value < 0;
      break;
  }
  if (!hit) return nullptr;
  entered_.fetch_add(1);
  return data_;
}

BsonDoc FailPoint::Describe() const {
  BsonDoc out;
  MutexLock lock(&mu_);
  // mongod prints the mode as its enum: off 0, alwaysOn 1, random 2, nTimes 3, skip 4.
  static constexpr int32_t kModeNumbers[] = {0, 1, 3, 4, 2};
  BSON_APPEND_INT32(out.get(), "mode", kModeNumbers[static_cast<int>(mode_.kind)]);
  bson_t data = data_ ? data_->view().AsBson() : BsonView().AsBson();
  BSON_APPEND_DOCUMENT(out.get(), "data", &data);
  BSON_APPEND_INT64(out.get(), "timesEntered", entered_.load());
  return out;
}

FailPoint* FailPoints::Find(std::string_view name) {
  for (FailPoint* point : {&fail_command, &fail_get_more_after_cursor_checkout,
                           &max_time_always_time_out, &on_primary_transactional_write}) {
    if (point->name() == name) return point;
  }
  return nullptr;
}

bool FailCommandTargets(BsonView data, const FailCommandTarget& target) {
  if (target.def->name == "configureFailPoint") return false;  // even when listed
  bson_iter_t it;
  if (data.Find("threadName", &it) &&
      StringField(data, "threadName") != "conn" + std::to_string(target.connection->id)) {
    return false;
  }
  if (data.Find("appName", &it) && StringField(data, "appName") != AppName(target)) return false;
  if (data.Find("namespace", &it) &&
      StringField(data, "namespace") != CommandNamespace(*target.request)) {
    return false;
  }
  return FlagSet(data, "failInternalCommands") || !target.connection->internal_client;
}

bool FailCommandApplies(BsonView data, const FailCommandTarget& target) {
  if (!FailCommandTargets(data, target)) return false;
  bson_iter_t it;
  return data.Find("failAllCommands", &it) || ListsCommand(data, target);
}

FailCommandHit FailCommandHit::FromData(std::shared_ptr<const BsonDoc> data) {
  FailCommandHit hit;
  if (data == nullptr) return hit;
  const BsonView view = data->view();
  hit.close_connection = FlagSet(view, "closeConnection");
  hit.block_connection = FlagSet(view, "blockConnection");
  if (std::optional<int64_t> code = ErrorCodeOf(view)) {
    hit.has_error_code = true;
    hit.error_code = *code;
  }
  hit.data = std::move(data);
  return hit;
}

Result<int64_t> FailCommandHit::BlockTimeMs() const {
  Result<int64_t> ms = ExtractInteger(data->view(), "blockTimeMS");
  if (!ms.ok()) {
    return Status(ErrorCode::kInvalidOptions,
                  "must specify 'blockTimeMS' when 'blockConnection' is true");
  }
  if (*ms < 0) return Status(ErrorCode::kInvalidOptions, "'blockTimeMS' must be non-negative");
  return *ms;
}

Status FailCommandHit::Outcome(ConnectionInfo* connection) const {
  static constexpr std::string_view kMessage = "Failing command via 'failCommand' failpoint";
  if (close_connection) {
    connection->end_session = true;
    return Status(ErrorCode::kLocation50985, std::string(kMessage));
  }
  bson_iter_t it;
  if (data->view().Find("errorExtraInfo", &it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "\"errorExtraInfo\" had the wrong type. Expected object, found " +
                        std::string(BsonTypeName(bson_iter_type(&it))));
    }
    if (error_code == 0) return Status::OK();
    return Status(static_cast<ErrorCode>(error_code), std::string(kMessage))
        .WithExtra(BsonDoc(IterDocument(&it)));
  }
  // An errorCode of 0 is OK, which fails nothing (uassertStatusOK of it passes).
  if (!has_error_code || error_code == 0) return Status::OK();
  return Status(static_cast<ErrorCode>(error_code), std::string(kMessage));
}

FailCommandHit EvaluateFailCommand(FailPoint& fail_command, const FailCommandTarget& target) {
  return FailCommandHit::FromData(fail_command.Evaluate([&](BsonView data) {
    return FailCommandApplies(data, target) &&
           (FlagSet(data, "closeConnection") || FlagSet(data, "blockConnection") ||
            ErrorCodeOf(data).has_value());
  }));
}

std::shared_ptr<const BsonDoc> EvaluateFailCommandWriteConcernError(
    FailPoint& fail_command, const FailCommandTarget& target) {
  return fail_command.Evaluate([&](BsonView data) {
    bson_iter_t it;
    return FailCommandApplies(data, target) && data.Find("writeConcernError", &it);
  });
}

std::optional<BsonView> FailCommandErrorLabels(const BsonDoc& data) {
  bson_iter_t it;
  if (!data.view().Find("errorLabels", &it) || !BSON_ITER_HOLDS_ARRAY(&it)) return std::nullopt;
  return IterDocument(&it);
}

}  // namespace cairn::server
