// tests/common/sanitizers.h
// Whether this test binary was built with AddressSanitizer
// (tests/sanitize.sh, cmake -DNNET3_SANITIZE=address,...). ASan reserves
// terabytes of address space for its shadow memory at start-up, so a test
// that caps the address space of a process (ulimit -v, RLIMIT_AS) and
// expects an ordinary out-of-memory outcome cannot run under it; such a
// test skips itself when kAddressSanitizer is true and says why.
#ifndef NNET3_TESTS_COMMON_SANITIZERS_H_
#define NNET3_TESTS_COMMON_SANITIZERS_H_

namespace nnet3 {
namespace testing {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_COMMON_SANITIZERS_H_
