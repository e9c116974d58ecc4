#include "ejob/cli/run.hpp"

int main(int argc, char** argv) { return ejob::cli::run(argc, argv); }
