//! `datagen`: plays Kiraly self-play games and writes quiet positions labelled
//! with the game result, for Texel tuning. See `datagen --help`.

use std::process::ExitCode;

use datagen::{parse_args, run, Command, HELP};

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok(Command::Help) => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Ok(Command::Run(config)) => match run(&config, true) {
            Ok(_) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("datagen: {message}");
                ExitCode::FAILURE
            }
        },
        Err(message) => {
            eprintln!("datagen: {message}\nTry 'datagen --help'.");
            ExitCode::from(2)
        }
    }
}
