%% Deaths that leave a core, for the crash-site tests: a NIF that segfaults (also
%% 5,000 native frames deep), erlang:halt(abort) and an allocation failure. Writes crash.json (what beamcore must name) first.
%% kill: the node waits; capture-crash.sh sends it SIGABRT from another process.
%% Run: erl -noshell -pa DIR -run beamcore_crash start nif|deep|abort|alloc|kill   (cwd = DIR)
-module(beamcore_crash).
-export([start/1, boom/0, deep_boom/0, halt_abort/0, grow/1, wait_kill/0]).

start([Kind]) ->
    {ok, Dir} = file:get_cwd(),
    spawn(fun() -> run(list_to_atom(Kind), Dir) end),
    ok.

run(nif, Dir) ->
    beamcore_crash_nif:load(Dir),
    register(crasher, self()),
    truth(Dir, "beamcore_crash:boom/0", "crash_nif_segv", "SIGSEGV"),
    boom();
run(deep, Dir) ->
    beamcore_crash_nif:load(Dir),
    register(crasher, self()),
    truth(Dir, "beamcore_crash:deep_boom/0", "crash_nif_recurse", "SIGSEGV",
          ",\"native_depth\": 5000"),
    deep_boom();
run(alloc, Dir) ->
    register(crasher, self()),
    truth(Dir, "beamcore_crash:grow/1", "erts_alc_fatal_error", "none",
          ",\"also\": [\"out of memory\", \"of type \\\"heap\\\"\"]"),
    wait_go(Dir),
    grow([]);
run(kill, Dir) ->
    register(crasher, self()),
    truth(Dir, "beamcore_crash:wait_kill/0", "none", "SIGABRT",
          io_lib:format(",\"os_pid\": ~s", [os:getpid()])),
    wait_kill();
run(abort, Dir) ->
    register(crasher, self()),
    truth(Dir, "beamcore_crash:halt_abort/0", "abort", "SIGABRT"),
    halt_abort().

%% Not tail calls: the callers stay on the stack.
boom() ->
    _ = beamcore_crash_nif:segv(),
    ok.

%% 5,000 native frames of the NIF, then SIGSEGV.
deep_boom() ->
    _ = beamcore_crash_nif:deep(5000),
    ok.

%% Builds a list until the heap cannot grow: eheap_alloc fails under ulimit -v.
grow(L) ->
    grow([lists:seq(1, 1000) | L]).

%% capture-crash.sh attaches gdb first, then says go.
wait_go(Dir) ->
    case filelib:is_file(filename:join(Dir, "go")) of
        true -> ok;
        false -> receive after 100 -> wait_go(Dir) end
    end.

%% Not a tail call: wait_kill/0 stays on the stack.
wait_kill() ->
    receive never -> ok end,
    ok.

halt_abort() ->
    _ = erlang:halt(abort),
    ok.

truth(Dir, Caller, CFunction, Signal) ->
    truth(Dir, Caller, CFunction, Signal, "").

truth(Dir, Caller, CFunction, Signal, Extra) ->
    Json = io_lib:format("{\"pid\": \"~s\", \"registered_name\": \"crasher\", \"caller\": \"~s\", "
                         "\"c_function\": \"~s\", \"signal\": \"~s\"~s}~n",
                         [pid_to_list(self()), Caller, CFunction, Signal, Extra]),
    ok = file:write_file(filename:join(Dir, "crash.json"), Json).
