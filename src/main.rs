//! The `swarm-attack` binary: keep the secrets out of the environment (see
//! `io::secrets`), parse arguments, run the library, map the error kind to an exit code.

fn main() -> std::process::ExitCode {
    swarm_attack::io::secrets::init_or_reexec();
    swarm_attack::cli::main_entry()
}
