// test_symbols' C++ function, whose name is mangled in the library's
// tables: the test expects it demangled.
#include <cstddef>

namespace symfix {
int grow(std::size_t n, const char *why);

int
grow(std::size_t n, const char *why)
{
	return static_cast<int>(n) + (why != nullptr);
}
}

extern "C" void *symfix_cxx_addr(void);

extern "C" void *
symfix_cxx_addr(void)
{
	return reinterpret_cast<void *>(&symfix::grow);
}
