//! The `swarm-attack` binary: parse arguments, run the library, map the error kind to an exit code.

fn main() -> std::process::ExitCode {
    swarm_attack::cli::main_entry()
}
