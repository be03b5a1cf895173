%% Node side of bench/procs-200k.sh: spawns N processes that all wait in a
%% receive (a few of them holding bigger heaps), waits until the node is
%% quiet, writes erlang:system_info(process_count) to DIR/process_count and
%% then DIR/ready, and idles forever (the script takes a gcore, then kills us).
%%
%% With C callers (third argument), C of the N wait in gen_server:call to
%% bench_stuck, a registered process that never answers (the stuck-pool
%% shape `beamcore waits` groups).
%%
%% Run: erl -noshell +P 1048576 -pa DIR -run bench_node start N DIR [C]
-module(bench_node).

-export([start/1]).
%% spawn/3 entry points
-export([main/3, idle/1, big/2, stuck/0, caller/1]).

%% Element counts of the lists the "big" processes keep live (2 words per
%% element on the heap): ~0.1, 1, 4, 8, 16 MB of live data.
-define(BIG, [5000, 60000, 250000, 500000, 1000000]).

%% Called by -run in init's short-lived starter process: hand over to a
%% long-lived process of our own and return.
start([NStr, Dir]) ->
    start([NStr, Dir, "0"]);
start([NStr, Dir, CStr]) ->
    spawn(?MODULE, main, [list_to_integer(NStr), Dir, list_to_integer(CStr)]),
    ok.

main(N, Dir, C) ->
    register(bench_node, self()),
    Me = self(),
    T0 = erlang:monotonic_time(millisecond),
    Big = lists:sublist(?BIG, max(0, min(length(?BIG), N))),
    [spawn(?MODULE, big, [Me, K]) || K <- Big],
    Callers = max(0, min(C, N - length(Big) - 1)),
    case Callers of
        0 -> ok;
        _ -> register(bench_stuck, spawn(?MODULE, stuck, [])),
             Me ! ack,
             [spawn(?MODULE, caller, [Me]) || _ <- lists:seq(1, Callers)]
    end,
    spawn_idle(Me, N - length(Big) - Callers - min(Callers, 1)),
    wait_acks(N),
    T1 = erlang:monotonic_time(millisecond),
    io:format("bench_node: ~b processes spawned and waiting in ~b ms~n", [N, T1 - T0]),
    %% Our own heap grew with the acks: shrink it, then wait until no
    %% scheduler has work (every process sits in its receive).
    garbage_collect(),
    quiet(200),
    write_file(filename:join(Dir, "process_count"),
               integer_to_list(erlang:system_info(process_count))),
    write_file(filename:join(Dir, "ready"), "ready"),
    receive after infinity -> ok end.

spawn_idle(_Me, 0) -> ok;
spawn_idle(Me, I) ->
    spawn(?MODULE, idle, [Me]),
    spawn_idle(Me, I - 1).

stuck() ->
    receive {never, matches} -> ok end.

caller(Parent) ->
    Parent ! ack,
    gen_server:call(bench_stuck, hello, infinity).

idle(Parent) ->
    Parent ! ack,
    receive stop -> ok end.

big(Parent, K) ->
    L = lists:seq(1, K),
    Parent ! ack,
    receive stop -> L end.

wait_acks(0) -> ok;
wait_acks(N) ->
    receive ack -> wait_acks(N - 1) after 300000 -> exit({missing_acks, N}) end.

%% Quiet: only this process active, 5 checks in a row, 50 ms apart (bounded:
%% gives up after Tries checks and says so; the core is still usable).
quiet(Tries) -> quiet(Tries, 0).
quiet(0, _) -> io:format("bench_node: node not quiet, taking the core anyway~n");
quiet(_, 5) -> ok;
quiet(Tries, Ok) ->
    receive after 50 -> ok end,
    case erlang:statistics(total_active_tasks_all) =< 1 of
        true -> quiet(Tries - 1, Ok + 1);
        false -> quiet(Tries - 1, 0)
    end.

write_file(Name, Data) ->
    {ok, F} = file:open(Name, [raw, write, binary]),
    ok = file:write(F, [Data, $\n]),
    ok = file:close(F).
