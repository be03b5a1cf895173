%% A node whose named ETS table and a registered process's message queue grow
%% between two snapshots (testdata/capture-grow.sh; tests/check_diff.py).
%% In the cwd, at each snapshot N (1, 2): writes truthN.json (the table's
%% size and memory, the queue's length, as the VM reports them), then snapN,
%% and does nothing until the script, having taken its gcore, writes goN.
%% Between the two it grows for about two seconds (the snapshots are seconds
%% apart: diff prints rates).
%%
%% Run: erl -noshell -pa DIR -run beamcore_grow start   (cwd = output dir)
-module(beamcore_grow).
-export([start/0, main/0, sink/0]).

-define(ROWS1, 1000).      % table rows at snapshot 1
-define(MSGS1, 1000).      % queued messages at snapshot 1
-define(STEPS, 20).        % growth steps between the snapshots, 100 ms apart
-define(ROWS_STEP, 250).   % rows added per step (5,000 in all)
-define(MSGS_STEP, 400).   % messages sent per step (8,000 in all)

start() ->
    spawn(?MODULE, main, []),
    ok.

main() ->
    register(bc_grow_main, self()),
    T = ets:new(bc_grow_table, [named_table, public, set]),
    Sink = spawn(?MODULE, sink, []),
    register(bc_grow_sink, Sink),
    grow(T, Sink, 0, ?ROWS1, ?MSGS1),
    snapshot(1, T, Sink),
    lists:foldl(fun(_, N) ->
                        timer:sleep(100),
                        grow(T, Sink, N, ?ROWS_STEP, ?MSGS_STEP),
                        N + ?ROWS_STEP
                end, ?ROWS1, lists:seq(1, ?STEPS)),
    snapshot(2, T, Sink),
    receive stop -> ok end.

%% Rows From+1 .. From+Rows into the table, Msgs messages to the sink.
grow(T, Sink, From, Rows, Msgs) ->
    ets:insert(T, [{K, <<K:64>>, lists:seq(1, 5)} || K <- lists:seq(From + 1, From + Rows)]),
    [Sink ! {event, I, <<"payload">>} || I <- lists:seq(1, Msgs)],
    ok.

%% Never receives what it is sent: the queue only grows.
sink() ->
    receive stop -> ok end.

snapshot(N, T, Sink) ->
    {message_queue_len, Q} = process_info(Sink, message_queue_len),
    Truth = io_lib:format("{\"table\":\"bc_grow_table\",\"size\":~b,\"memory\":~b,"
                          "\"sink\":\"bc_grow_sink\",\"message_queue_len\":~b,"
                          "\"os_pid\":\"~s\"}~n",
                          [ets:info(T, size), ets:info(T, memory), Q, os:getpid()]),
    ok = file:write_file("truth" ++ integer_to_list(N) ++ ".json.tmp", Truth),
    ok = file:rename("truth" ++ integer_to_list(N) ++ ".json.tmp",
                     "truth" ++ integer_to_list(N) ++ ".json"),
    ok = file:write_file("snap" ++ integer_to_list(N), <<"snap">>),
    wait_go("go" ++ integer_to_list(N)).

wait_go(F) ->
    case filelib:is_regular(F) of
        true -> ok;
        false -> timer:sleep(50), wait_go(F)
    end.
