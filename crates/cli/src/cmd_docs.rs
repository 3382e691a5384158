//! `diskbench completions SHELL` and `diskbench man`: shell completions and
//! a man page made from the same clap definitions that parse the command
//! line, so they can never list a flag the binary does not take.
//!
//! Install them as other tools' are, e.g.
//! `diskbench completions bash > /etc/bash_completion.d/diskbench` and
//! `diskbench man > /usr/local/share/man/man1/diskbench.1` (and `diskbench
//! man run > .../diskbench-run.1` for each subcommand the page lists).

use crate::outcome::Exit;
use clap::CommandFactory;
use std::io::Write;

#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

pub fn completions(args: CompletionsArgs) -> anyhow::Result<Exit> {
    let mut cmd = crate::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "diskbench", &mut out);
    std::io::stdout().write_all(&out)?;
    Ok(Exit::Ok)
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// A subcommand's page (diskbench-run(1), ...) instead of diskbench(1)
    subcommand: Option<String>,
}

pub fn man(args: ManArgs) -> anyhow::Result<Exit> {
    let top = crate::Cli::command();
    let page = match &args.subcommand {
        None => top,
        Some(name) => match top.find_subcommand(name) {
            // Named as the top page's SUBCOMMANDS section refers to it.
            Some(sub) => sub.clone().name(format!("diskbench-{name}")),
            None => {
                let names: Vec<_> = top.get_subcommands().map(|c| c.get_name()).collect();
                eprintln!(
                    "diskbench man: no subcommand '{name}'; the pages are diskbench and \
                     diskbench-NAME for NAME in: {}",
                    names.join(", ")
                );
                return Ok(Exit::Usage);
            }
        },
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    std::io::stdout().write_all(&out)?;
    Ok(Exit::Ok)
}
