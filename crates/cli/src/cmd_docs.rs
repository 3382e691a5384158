//! `diskbench completions SHELL` and `diskbench man`: shell completions
//! made from the same clap definitions that parse the command line, so they
//! never offer a flag the binary does not take, and man pages made from the
//! reference pages in `docs/` (built in by the `docs` crate), so the man
//! page and the page on the web say the same.
//!
//! The completions add what clap's definitions cannot know: the profiles'
//! names for `--profile` (the parser takes any name and says which exist,
//! so the list is given to the completion script only), and, in bash, the
//! ids of the runs in the history for `show`, `export` and `rm`, asked of
//! `diskbench history` each time TAB is pressed.
//!
//! Install them as other tools' are, e.g.
//! `diskbench completions bash > /etc/bash_completion.d/diskbench` and
//! `diskbench man > /usr/local/share/man/man1/diskbench.1` (and `diskbench
//! man run > .../diskbench-run.1` for each command).

use crate::outcome::Exit;
use clap::builder::PossibleValuesParser;
use clap::CommandFactory;
use std::io::Write;

#[derive(clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// bash's completion of run ids: a function run before clap's own, which
/// answers for the run arguments of `show`, `export` and `rm` (not for a
/// flag or a flag's value) from the history the command line names.
const BASH_RUN_IDS: &str = r#"
# Run ids for show, export and rm, from the history (--db, else the default).
_diskbench_runs() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    case "${COMP_WORDS[1]}" in
        show|export|rm)
            if [[ $COMP_CWORD -ge 2 && "$cur" != -* && ( "$prev" != --* || "$prev" == *=* ) ]]; then
                local db=() i
                for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
                    case "${COMP_WORDS[i]}" in
                        --db) db=(--db "${COMP_WORDS[i+1]}") ;;
                        --db=*) db=("${COMP_WORDS[i]}") ;;
                    esac
                done
                local ids
                ids=$("${COMP_WORDS[0]}" history --format csv "${db[@]}" 2>/dev/null | tail -n +2 | cut -d, -f1)
                COMPREPLY=($(compgen -W "$ids" -- "$cur"))
                return 0
            fi
            ;;
    esac
    _diskbench "$@"
}
complete -F _diskbench_runs -o nosort -o bashdefault -o default diskbench
"#;

pub fn completions(args: CompletionsArgs) -> anyhow::Result<Exit> {
    let names: Vec<&str> = profiles::PROFILES.iter().map(|p| p.name).collect();
    let with_names = |a: clap::Arg| a.value_parser(PossibleValuesParser::new(names.clone()));
    let mut cmd = crate::Cli::command()
        .mut_subcommand("run", |c| c.mut_arg("profile", with_names))
        .mut_subcommand("kube", |k| {
            k.mut_subcommand("run", |c| c.mut_arg("profile", with_names))
        });
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "diskbench", &mut out);
    if args.shell == clap_complete::Shell::Bash {
        out.extend_from_slice(BASH_RUN_IDS.as_bytes());
    }
    std::io::stdout().write_all(&out)?;
    Ok(Exit::Ok)
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// A command's page (diskbench-run(1), ...) or a topic's (output, safety,
    /// verify, many-machines) instead of diskbench(1)
    page: Option<String>,
}

pub fn man(args: ManArgs) -> anyhow::Result<Exit> {
    let name = args.page.as_deref().unwrap_or("diskbench");
    match docs::man(name, env!("CARGO_PKG_VERSION")) {
        Ok(page) => {
            std::io::stdout().write_all(page.as_bytes())?;
            Ok(Exit::Ok)
        }
        Err(e) => {
            eprintln!("diskbench man: {e}; `diskbench man NAME` prints one");
            Ok(Exit::Usage)
        }
    }
}
