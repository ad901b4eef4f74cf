// The host of the tests' shared precompiled header (tests/CMakeLists.txt, SQLGRADE_TEST_PCH): it holds no
// code; every test binary reuses the header it compiles.
