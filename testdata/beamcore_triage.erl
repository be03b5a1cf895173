%% Deaths for beamcore triage's corpus (testdata/triage-corpus.sh), each
%% leaving an erl_crash.dump; run: erl -noshell -pa DIR -run beamcore_triage F ARG
%%   disk N     erlang:halt("disk full: N bytes left in /var/tmp/runN/data")
%%   config N   erlang:halt("config error: key N missing") from another function
%%   boot N     exits in do_boot with {bad_config, N}: "init terminating in do_boot"
%%   grow _     a registered process (`grower`) grows until eheap_alloc fails
%%              (under `ulimit -v`): "eheap_alloc: Cannot allocate N bytes ..."
%%   wait _     registers `waiter` and waits (for a SIGUSR1 from the script)
-module(beamcore_triage).
-export([disk/1, config/1, boot/1, grow/1, grower/1, wait/1]).

num([A]) -> list_to_integer(A).

disk(Args) ->
    N = num(Args),
    erlang:halt(lists:flatten(io_lib:format("disk full: ~b bytes left in /var/tmp/run~b/data",
                                            [N * 512, N]))).

config(Args) ->
    N = num(Args),
    erlang:halt(lists:flatten(io_lib:format("config error: key ~b missing", [N]))).

boot(Args) ->
    exit({bad_config, num(Args)}).

grow(_) ->
    register(grower, spawn(?MODULE, grower, [[]])),
    ok.

grower(L) ->
    grower([self() | L]).

wait(_) ->
    register(waiter, self()),
    ok = file:write_file("ready", <<>>),
    receive stop -> ok end.
