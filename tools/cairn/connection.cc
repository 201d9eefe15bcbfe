// Client creation and command helpers over libmongoc.
#include "tools/cairn/connection.h"

namespace cairn::tools {

namespace {

Result<std::string> UriFromArgs(const Args& args) {
  if (args.Has("uri") && (args.Has("host") || args.Has("port"))) {
    return Status(ErrorCode::kBadValue, "give either --uri or --host/--port, not both");
  }
  if (args.Has("uri")) return args.Get("uri");
  std::string host = args.Get("host", "127.0.0.1");
  // mongodump accepts host:port in --host; a replica-set "name/host1,host2" form is refused.
  if (host.find('/') != std::string::npos) {
    return Status(ErrorCode::kBadValue, "--host rs/host,... is not supported: use --uri");
  }
  if (host.find(':') == std::string::npos) host += ":" + args.Get("port", "27017");
  return "mongodb://" + host + "/?directConnection=true";
}

}  // namespace

Result<Client> Connect(const Args& args, const char* app_name) {
  CAIRN_ASSIGN_OR_RETURN(std::string uri_text, UriFromArgs(args));
  bson_error_t err;
  mongoc_uri_t* uri = mongoc_uri_new_with_error(uri_text.c_str(), &err);
  if (!uri) return Status(ErrorCode::kBadValue, std::string("bad --uri: ") + err.message);
  if (!mongoc_uri_has_option(uri, MONGOC_URI_APPNAME)) mongoc_uri_set_appname(uri, app_name);
  Client client(mongoc_client_new_from_uri_with_error(uri, &err));
  mongoc_uri_destroy(uri);
  if (!client) {
    return Status(ErrorCode::kBadValue, std::string("cannot create a client: ") + err.message);
  }
  mongoc_client_set_error_api(client.get(), MONGOC_ERROR_API_VERSION_2);
  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  Status status = RunCommand(client.get(), "admin", &ping);
  bson_destroy(&ping);
  if (!status.ok()) return status.WithContext("cannot reach " + uri_text);
  return client;
}

Status RunCommand(mongoc_client_t* client, const std::string& db, const bson_t* command,
                  bson_t* reply) {
  bson_error_t err;
  bson_t local;
  bool ok = mongoc_client_command_simple(client, db.c_str(), command, nullptr,
                                         reply ? reply : &local, &err);
  if (!reply) bson_destroy(&local);
  if (ok) return Status::OK();
  return Status(ErrorCode::kUnknownError, err.message);
}

std::string ServerVersion(mongoc_client_t* client) {
  bson_t cmd = BSON_INITIALIZER;
  BSON_APPEND_INT32(&cmd, "buildInfo", 1);
  bson_t reply;
  std::string version;
  if (RunCommand(client, "admin", &cmd, &reply).ok()) version = GetString(&reply, "version");
  bson_destroy(&reply);
  bson_destroy(&cmd);
  return version;
}

}  // namespace cairn::tools
