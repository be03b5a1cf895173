%% Node side of bench/dump-400k.sh: spawns N processes that each keep a
%% K-element list of small tuples live while they wait in a receive (what a
%% pool of busy-ish workers looks like in a dump: a =proc section, a short
%% stack and a few KB of heap lines each), plus one process holding a large
%% list (the one that grew), waits until the node is quiet, writes
%% erlang:system_info(process_count) to DIR/process_count and then DIR/ready,
%% and idles (the script sends SIGUSR1: the node writes its crash dump).
%%
%% Run: erl -noshell +P 1048576 -pa DIR -run dump_node start N K DIR
-module(dump_node).

-export([start/1]).
%% spawn/3 entry points
-export([main/3, worker/2, big/2]).

-define(BIG, 2000000).  % elements of the big process's list (~50 MB of heap lines)

start([NStr, KStr, Dir]) ->
    spawn(?MODULE, main, [list_to_integer(NStr), list_to_integer(KStr), Dir]),
    ok.

main(N, K, Dir) ->
    register(dump_node, self()),
    %% The acks pile up while we spawn: kept off our heap, each of our GCs
    %% does not copy the whole queue (at 1M processes that took the node's
    %% start from minutes to a quarter of an hour).
    process_flag(message_queue_data, off_heap),
    Me = self(),
    spawn(?MODULE, big, [Me, ?BIG]),
    spawn_workers(Me, N - 1, K),
    wait_acks(N),
    garbage_collect(),
    quiet(200),
    write_file(filename:join(Dir, "process_count"),
               integer_to_list(erlang:system_info(process_count))),
    write_file(filename:join(Dir, "ready"), "ready"),
    receive after infinity -> ok end.

spawn_workers(_Me, 0, _K) -> ok;
spawn_workers(Me, I, K) ->
    spawn(?MODULE, worker, [Me, K]),
    spawn_workers(Me, I - 1, K).

worker(Parent, K) ->
    State = [{J, J * 7} || J <- lists:seq(1, K)],
    Parent ! ack,
    receive stop -> State end.

big(Parent, K) ->
    register(big, self()),
    L = lists:seq(1, K),
    Parent ! ack,
    receive stop -> L end.

wait_acks(0) -> ok;
wait_acks(N) ->
    receive ack -> wait_acks(N - 1) after 300000 -> exit({missing_acks, N}) end.

%% Quiet: only this process active, 5 checks in a row, 50 ms apart.
quiet(Tries) -> quiet(Tries, 0).
quiet(0, _) -> io:format("dump_node: node not quiet, dumping anyway~n");
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
