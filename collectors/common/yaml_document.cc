#include "collectors/common/yaml_document.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace rnic {
namespace {

// Parses without building nodes: only whether a document is there counts.
class IgnoreEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

Result<YAML::Node> LoadOneDocument(const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    std::istringstream in(text);
    YAML::Parser parser(in);
    IgnoreEvents ignore;
    if (parser.HandleNextDocument(ignore) &&
        parser.HandleNextDocument(ignore)) {
      return Error{"more than one YAML document (the config is one map)"};
    }
    return root;
  } catch (const YAML::Exception& e) {
    return Error{e.what()};
  }
}

}  // namespace rnic
