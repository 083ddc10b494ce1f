#include "core/version.h"

namespace graphopt {

const char* GraphoptVersion() { return GRAPHOPT_VERSION; }

}  // namespace graphopt
