# bash completion for beamcore(1); made from the commands' option tables by
# tests/check_options.py --write (beamcore --dump-options): do not edit
_beamcore()
{
	local cur prev cmd i opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmds="summary procs proc ets binaries atoms resources memory stacks threads nodes ports waits tree check diff export report tui sample layout triage help"
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case " $cmds " in *" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break;; esac
	done
	case $cmd:$prev in
	*:--top|*:--max-stop|*:--term|*:--around|*:--depth|*:--details|*:--interval|*:--seconds|*:--hz)
		return;;
	*:--pid)
		COMPREPLY=($(compgen -W "$(pgrep -d ' ' '^beam\.' 2>/dev/null)" -- "$cur")); return;;
	*:--debug-file|*:--layout|*:--labels|*:--rules|*:--junit|*:--output|*:-o|*:--speedscope|*:--baseline)
		COMPREPLY=($(compgen -f -- "$cur")); return;;
	*:--sysroot)
		COMPREPLY=($(compgen -d -- "$cur")); return;;
	procs:--sort)
		COMPREPLY=($(compgen -W "memory total_heap_size message_queue_len reductions heap_size stack_size pid name status current_function garbage_bytes" -- "$cur")); return;;
	ports:--sort)
		COMPREPLY=($(compgen -W "queue_size input output suspended links id name connected" -- "$cur")); return;;
	*:--group-by)
		COMPREPLY=($(compgen -W "label initial_call stack" -- "$cur")); return;;
	stacks:--weight|export:--weight)
		COMPREPLY=($(compgen -W "count memory total_heap_size message_queue_len binary" -- "$cur")); return;;
	sample:--weight)
		COMPREPLY=($(compgen -W "count reductions" -- "$cur")); return;;
	*:--max)
		COMPREPLY=($(compgen -W "message_queue_len memory total_heap_size heap_size stack_size reductions ets.size ets.memory process_count atom_count total processes processes_used system atom atom_used binary code ets" -- "$cur")); return;;
	*:--format)
		COMPREPLY=($(compgen -W "speedscope dot crashdump" -- "$cur")); return;;
	esac
	if [[ $cur == -* ]]; then
		case $cmd in
		summary|'') opts="--json --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		procs) opts="--json --sort --top --group-by --garbage --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		proc) opts="--json --all --term --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		ets) opts="--json --top --rows --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		binaries) opts="--json --top --waste --audit --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		atoms) opts="--json --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		resources) opts="--json --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		memory) opts="--json --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		stacks) opts="--json --top --folded --weight --by-status --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		threads) opts="--json --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		nodes) opts="--json --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		ports) opts="--json --sort --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		waits) opts="--json --top --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		tree) opts="--json --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		check) opts="--json --max --rules --junit --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		diff) opts="--json --top --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		export) opts="--json --weight --by-status --format --output -o --around --depth --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		report) opts="--json --output -o --details --pid --no-stop --max-stop --max-stop-fail --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		tui) opts="--pid --no-stop --max-stop --max-stop-fail --interval --stop --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		sample) opts="--pid --seconds --hz --folded --by-status --weight --perf-script --speedscope --json --top --debug-file --help";;
		layout) opts="--help";;
		triage) opts="--json --baseline --junit --debug-file --layout --no-cache --sysroot --labels --quiet --help";;
		*) opts="--help";;
		esac
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$cmds" -- "$cur") $(compgen -f -- "$cur"))
	elif [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _beamcore beamcore
