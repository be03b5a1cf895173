# bash completion for beamcore(1)
_beamcore()
{
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmds="summary procs proc ets binaries memory stacks threads nodes waits tree check diff export tui sample help"
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case " $cmds " in *" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break;; esac
	done
	case $prev in
	--sort) COMPREPLY=($(compgen -W "total_heap_size memory heap_size stack_size message_queue_len reductions pid name status current_function" -- "$cur")); return;;
	--weight)
		if [[ $cmd == sample ]]; then COMPREPLY=($(compgen -W "count reductions" -- "$cur"))
		else COMPREPLY=($(compgen -W "count memory total_heap_size message_queue_len binary" -- "$cur")); fi
		return;;
	--seconds|--hz) return;;
	--speedscope) COMPREPLY=($(compgen -f -- "$cur")); return;;
	--top) return;;
	--max) COMPREPLY=($(compgen -W "message_queue_len memory total_heap_size heap_size stack_size reductions ets.size ets.memory process_count atom_count total processes processes_used system atom atom_used binary code ets" -- "$cur")); return;;
	--format) COMPREPLY=($(compgen -W "speedscope dot crashdump" -- "$cur")); return;;
	--depth) return;;
	--around) return;;
	-o|--output|--rules|--junit) COMPREPLY=($(compgen -f -- "$cur")); return;;
	--debug-file) COMPREPLY=($(compgen -f -- "$cur")); return;;
	--sysroot) COMPREPLY=($(compgen -d -- "$cur")); return;;
	--pid) COMPREPLY=($(compgen -W "$(pgrep -d ' ' '^beam\.' 2>/dev/null)" -- "$cur")); return;;
	--interval) return;;
	esac
	if [[ $cur == -* ]]; then
		local opts="--debug-file --sysroot --help"
		[[ $cmd == diff ]] || opts+=" --pid --no-stop"
		[[ $cmd == sample ]] && opts="--pid --seconds --hz --folded --by-status --weight --perf-script --speedscope --json --top --debug-file --help"
		case $cmd in
		procs) opts+=" --json --sort --top";;
		stacks) opts+=" --json --top --folded --weight --by-status";;
		proc|threads|tree) opts+=" --json";;
		check) opts+=" --json --max --rules --junit";;
		export) opts+=" --json --format -o --around --depth --weight --by-status";;
		tui) opts+=" --interval --stop";;
		sample) ;;
		help) ;;
		*) opts+=" --json --top";;
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
