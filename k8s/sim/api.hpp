// The REST surface of simcluster, independent of any HTTP library: it maps
// a request (method, path, query, headers, body) to a response, covering
// /version, discovery, /openapi/v3 and the resource paths of every served
// kind, including streaming watches.
// Contract: handle() never throws; failures become Status responses with
// the real codes. A watch response carries a WatchStream the transport
// drains until it returns nullopt.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "k8s/sim/cluster.hpp"
#include "k8s/sim/openapi.hpp"

namespace k8s::sim {

struct HttpRequest {
  std::string method;
  std::string path;
  std::multimap<std::string, std::string> query;
  std::string accept;
  std::string content_type;
  std::string body;

  std::string param(const std::string& key) const;
  // A boolean query parameter as the API server decodes it (apimachinery's
  // Convert_Slice_string_To_bool): absent, "0" or any case of "false" is
  // false; anything else, "True" and "" included, is true.
  bool flag(const std::string& key) const;
  bool has_param(const std::string& key) const { return query.count(key) > 0; }
};

struct WatchStreamOptions {
  bool bookmarks = false;
  std::chrono::milliseconds bookmark_interval{60000};
  std::chrono::seconds timeout{1800};
  // Renders an event's object; null sends the object itself. `first` is
  // set for the stream's first object (Tables carry their columns once).
  std::function<std::string(const SnapshotPtr& object, bool first)> encode;
};

class WatchStream {
 public:
  WatchStream(Store& store, std::shared_ptr<Watcher> watcher, ResourceType type, WatchStreamOptions options);
  // A stream that sends one ERROR event (e.g. 410 Expired) and ends.
  WatchStream(Store& store, const model::Value& error_status);
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Waits at most `wait` and returns the next bytes to send: one JSON
  // event per line, or "" when nothing happened. nullopt ends the stream.
  std::optional<std::string> next(std::chrono::milliseconds wait);

 private:
  std::string bookmark(std::uint64_t rv, bool initial_end) const;
  std::string encode(const SnapshotPtr& object);

  Store& store_;
  std::shared_ptr<Watcher> watcher_;
  ResourceType type_;
  WatchStreamOptions options_;
  std::string pending_;
  bool sent_object_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point next_bookmark_;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::string> warnings;  // sent as "Warning: 299 - ..." headers
  std::map<std::string, std::string> headers;
  std::shared_ptr<WatchStream> stream;
};

class ApiError;
// A JSON body answered with `status`.
HttpResponse json_response(const model::Value& body, int status = 200);
// `e`'s Status object, answered with its code.
HttpResponse error_response(const ApiError& e);

struct ApiOptions {
  std::string server_address = "127.0.0.1:0";  // host:port advertised by /api
  std::chrono::milliseconds bookmark_interval{60000};
};

class Api {
 public:
  Api(Cluster& cluster, ApiOptions options);
  HttpResponse handle(const HttpRequest& request);
  void set_server_address(const std::string& address) { options_.server_address = address; }

 private:
  HttpResponse dispatch(const HttpRequest& request);
  HttpResponse discovery(const HttpRequest& request, const std::vector<std::string>& segments);
  HttpResponse resource(const HttpRequest& request, const std::string& group, const std::string& version,
                        std::vector<std::string> segments);

  Cluster& cluster_;
  ApiOptions options_;
  OpenApi openapi_;
};

// Encodes one watch event line: {"type":"ADDED","object":{...}}\n
std::string watch_event_line(const char* type, const std::string& object_json);

}  // namespace k8s::sim
