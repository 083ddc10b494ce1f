// Checks of a Status a test expects to fail.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/status.h"

namespace graphopt::testing {

// `s` is an error whose message holds `fragment`.
inline void ExpectErrorWith(const Status& s, const std::string& fragment) {
  ASSERT_FALSE(s.ok()) << "expected an error with: " << fragment;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

}  // namespace graphopt::testing
