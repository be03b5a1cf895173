%% Node side of bench/procs-200k.sh: spawns N processes that all wait in a
%% receive (a few of them holding bigger heaps), waits until the node is
%% quiet, writes erlang:system_info(process_count) to DIR/process_count and
%% then DIR/ready, and idles forever (the script takes a gcore, then kills us).
%%
%% Run: erl -noshell +P 1048576 -pa DIR -run bench_node start N DIR
-module(bench_node).

-export([start/1]).
%% spawn/3 entry points
-export([main/2, idle/1, big/2]).

%% Element counts of the lists the "big" processes keep live (2 words per
%% element on the heap): ~0.1, 1, 4, 8, 16 MB of live data.
-define(BIG, [5000, 60000, 250000, 500000, 1000000]).

%% Called by -run in init's short-lived starter process: hand over to a
%% long-lived process of our own and return.
start([NStr, Dir]) ->
    spawn(?MODULE, main, [list_to_integer(NStr), Dir]),
    ok.

main(N, Dir) ->
    register(bench_node, self()),
    Me = self(),
    T0 = erlang:monotonic_time(millisecond),
    Big = lists:sublist(?BIG, max(0, min(length(?BIG), N))),
    [spawn(?MODULE, big, [Me, K]) || K <- Big],
    spawn_idle(Me, N - length(Big)),
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
