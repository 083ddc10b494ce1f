// The version of graphopt this binary is: the project's version in the top
// CMakeLists.txt, recorded in the checkpoints and files that must be read by the
// same version that wrote them.
#pragma once

namespace graphopt {

const char* GraphoptVersion();

}  // namespace graphopt
