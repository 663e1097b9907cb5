package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/filter"
	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts are urfave/cli v2's autocomplete/bash_autocomplete
// and zsh_autocomplete (MIT), with the program name filled in: each asks
// rdbz itself for the candidates (rdbz ... --generate-bash-completion).
const bashCompletion = `# bash completion for rdbz: source it, or put it in
# /etc/bash_completion.d/rdbz or ~/.local/share/bash-completion/completions/rdbz
_rdbz_bash_autocomplete() {
  if [[ "${COMP_WORDS[0]}" != "source" ]]; then
    local cur opts
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    if [[ "$cur" == "-"* ]]; then
      opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "${cur}" --generate-bash-completion 2>/dev/null)
    else
      opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
    fi
    COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
    return 0
  fi
}
complete -o bashdefault -o default -F _rdbz_bash_autocomplete rdbz
`

const zshCompletion = `#compdef rdbz
# zsh completion for rdbz: put it in a folder of $fpath as _rdbz, or source it
_rdbz_zsh_autocomplete() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _rdbz_zsh_autocomplete rdbz
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: source <(rdbz completion bash); zsh: rdbz completion zsh > \"${fpath[1]}/_rdbz\";\n" +
			"fish: rdbz completion fish > ~/.config/fish/completions/rdbz.fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one shell: bash, zsh or fish")
			}
			var script string
			switch shell := c.Args().First(); shell {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				var err error
				if script, err = c.App.ToFishCompletion(); err != nil {
					return err
				}
			default:
				return usagef("no completion for %q: bash, zsh or fish", shell)
			}
			return report(func(w io.Writer) { fmt.Fprint(w, script) })
		},
	}
}

// completeValues is the shell completion of a command with the key
// filters (filterFlags): after --type the type families, after --expired
// keep and drop, else urfave's (the command's flags).
func completeValues(cmd *cli.Command) cli.BashCompleteFunc {
	flags := cli.DefaultCompleteWithFlags(cmd)
	return func(c *cli.Context) {
		// As urfave's: the word before the completion flag.
		if len(os.Args) > 2 {
			switch os.Args[len(os.Args)-2] {
			case "--type":
				fmt.Fprintln(c.App.Writer, strings.Join(filter.Families, "\n"))
				return
			case "--expired":
				fmt.Fprintln(c.App.Writer, "keep\ndrop")
				return
			}
		}
		flags(c)
	}
}
