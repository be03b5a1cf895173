%% Deaths that leave a core, for the crash-site tests: a NIF that segfaults and
%% erlang:halt(abort). Writes crash.json (what beamcore must name) first.
%% Run: erl -noshell -pa DIR -run beamcore_crash start nif|abort   (cwd = DIR)
-module(beamcore_crash).
-export([start/1, boom/0, halt_abort/0]).

start([Kind]) ->
    {ok, Dir} = file:get_cwd(),
    spawn(fun() -> run(list_to_atom(Kind), Dir) end),
    ok.

run(nif, Dir) ->
    beamcore_crash_nif:load(Dir),
    register(crasher, self()),
    truth(Dir, "beamcore_crash:boom/0", "crash_nif_segv", "SIGSEGV"),
    boom();
run(abort, Dir) ->
    register(crasher, self()),
    truth(Dir, "beamcore_crash:halt_abort/0", "abort", "SIGABRT"),
    halt_abort().

%% Not tail calls: the callers stay on the stack.
boom() ->
    _ = beamcore_crash_nif:segv(),
    ok.

halt_abort() ->
    _ = erlang:halt(abort),
    ok.

truth(Dir, Caller, CFunction, Signal) ->
    Json = io_lib:format("{\"pid\": \"~s\", \"registered_name\": \"crasher\", \"caller\": \"~s\", "
                         "\"c_function\": \"~s\", \"signal\": \"~s\"}~n",
                         [pid_to_list(self()), Caller, CFunction, Signal]),
    ok = file:write_file(filename:join(Dir, "crash.json"), Json).
