%% Node side of bench/live_stop.py: N idle processes (each waiting in a
%% receive, small heaps), then a workload on every scheduler that counts its
%% operations (an atomics counter; one operation = lists:sum of a fresh
%% 100-element list), and a sampler that records the count every 10 ms for
%% Secs seconds. Writes DIR/ready once the idle processes are up (the load
%% starts then), then DIR/rates.txt: "MILLIS OPS" a line (wall clock in ms,
%% operations in the 10 ms before), and idles.
%% Run: erl -noshell +P 1048576 -pa DIR -run live_load start N DIR SECS
-module(live_load).
-export([start/1, main/3, idle/0, worker/1]).

start([NStr, Dir, SecsStr]) ->
    spawn(?MODULE, main, [list_to_integer(NStr), Dir, list_to_integer(SecsStr)]),
    ok.

main(N, Dir, Secs) ->
    [spawn(?MODULE, idle, []) || _ <- lists:seq(1, N)],
    C = atomics:new(1, []),
    [spawn(?MODULE, worker, [C]) || _ <- lists:seq(1, erlang:system_info(schedulers))],
    write(Dir, "ready", <<"ready">>),
    Samples = sample(C, Secs * 100, 0, []),
    write(Dir, "rates.txt", [[integer_to_list(T), $\s, integer_to_list(D), $\n]
                             || {T, D} <- lists:reverse(Samples)]),
    receive after infinity -> ok end.

idle() -> receive stop -> ok end.

worker(C) ->
    _ = lists:sum(lists:seq(1, 100)),
    atomics:add(C, 1, 1),
    worker(C).

sample(_, 0, _, Acc) -> Acc;
sample(C, K, Last, Acc) ->
    receive after 10 -> ok end,
    V = atomics:get(C, 1),
    sample(C, K - 1, V, [{os:system_time(millisecond), V - Last} | Acc]).

write(Dir, Name, Data) ->
    {ok, F} = file:open(filename:join(Dir, Name), [raw, write, binary]),
    ok = file:write(F, Data),
    ok = file:close(F).
