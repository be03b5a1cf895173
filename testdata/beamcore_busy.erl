%% A node whose CPU split is known by construction, for beamcore sample's
%% tests: one registered process, busy_worker, loops over three functions
%% doing the same work per iteration in the ratio 50/30/20 (a/2, b/2, c/2),
%% timing each call itself. A ticker appends a line every 100 ms to OutFile
%% (raw file writes, nothing else loaded):
%%   T_ms Rounds A_ns B_ns C_ns Cpu_ns Id:Active:Total ...
%% T_ms is os:system_time(millisecond); Rounds the rounds done so far; X_ns the
%% time spent in each function so far; Cpu_ns the CPU time of the normal
%% schedulers' threads (/proc/self/task/*/schedstat: user and kernel, so a
%% cost the sampling puts on the node counts; throughput per CPU second stays
%% comparable on a machine shared with other work); then scheduler_wall_time per normal
%% scheduler (erlang:statistics/1, native units, ns here). The first line is
%% "pid <0.N.0> worker" for the worker's pid.
%% bench/sample.sh profiles the worker in the node itself for comparison: a
%% file OutFile.ctl holding "eprof S" or "fprof S" makes the ticker profile
%% busy_worker with that tool for S seconds: "profiling Tool T0_ms" when it
%% started, "profile Tool T0_ms T1_ms" once it stopped.
-module(beamcore_busy).
-export([start/1, a/2, b/2, c/2]).

-define(UNIT, 2000).  % iterations per work unit: ~10 us

start([OutFile]) ->
    Counters = counters:new(4, [write_concurrency]),
    W = spawn(fun() -> worker(Counters) end),
    register(busy_worker, W),
    %% the flag lives as long as the process that set it, a raw file is its
    %% opener's: both the ticker's
    spawn(fun() ->
                  erlang:system_flag(scheduler_wall_time, true),
                  {ok, F} = file:open(OutFile, [raw, write, binary]),
                  put(ctl, OutFile ++ ".ctl"),
                  ok = file:write(F, io_lib:format("pid ~p worker~n", [W])),
                  tick(F, Counters)
          end),
    ok.

%% A round is 5/3/2 units of a random size: the split is exact per round, and
%% rounds of varying length keep a sampler from locking onto one phase.
worker(C) ->
    U = ?UNIT div 2 + rand:uniform(?UNIT),
    T0 = erlang:monotonic_time(nanosecond),
    a(5 * U, 0),
    T1 = erlang:monotonic_time(nanosecond),
    b(3 * U, 0),
    T2 = erlang:monotonic_time(nanosecond),
    c(2 * U, 0),
    T3 = erlang:monotonic_time(nanosecond),
    counters:add(C, 1, 1),
    counters:add(C, 2, T1 - T0),
    counters:add(C, 3, T2 - T1),
    counters:add(C, 4, T3 - T2),
    worker(C).

%% The same loop three times: equal work per iteration.
a(0, Acc) -> Acc;
a(N, Acc) -> a(N - 1, (Acc * 7 + N) band 16#ffff).
b(0, Acc) -> Acc;
b(N, Acc) -> b(N - 1, (Acc * 7 + N) band 16#ffff).
c(0, Acc) -> Acc;
c(N, Acc) -> c(N - 1, (Acc * 7 + N) band 16#ffff).

%% The CPU time of the normal schedulers' threads ("1_scheduler" on OTP 25,
%% "erts_sched_1" on 27+): where the worker runs and where a sampler's
%% interrupts land; the other threads' (the dirty I/O ones reading these
%% files) would only add noise.
cpu_ns() ->
    Tids = case get(sched_tids) of
               undefined ->
                   {ok, All} = file:list_dir("/proc/self/task"),
                   S = [T || T <- All, is_scheduler(T)],
                   put(sched_tids, S),
                   S;
               S -> S
           end,
    lists:sum([case file:read_file("/proc/self/task/" ++ T ++ "/schedstat") of
                   {ok, B} -> binary_to_integer(hd(binary:split(B, <<" ">>)));
                   _ -> 0
               end || T <- Tids]).

is_scheduler(Tid) ->
    case file:read_file("/proc/self/task/" ++ Tid ++ "/comm") of
        {ok, <<"erts_sched_", _/binary>>} -> true;
        {ok, Comm} -> binary:match(Comm, <<"_scheduler">>) =/= nomatch;
        _ -> false
    end.

tick(F, C) ->
    receive after 100 -> ok end,
    Sw = lists:sort(erlang:statistics(scheduler_wall_time)),
    Ns = erlang:system_info(schedulers),
    Scheds = [io_lib:format(" ~b:~b:~b", [Id, A, T]) || {Id, A, T} <- Sw, Id =< Ns],
    Line = io_lib:format("~b ~b ~b ~b ~b ~b~s~n",
                         [os:system_time(millisecond), counters:get(C, 1), counters:get(C, 2),
                          counters:get(C, 3), counters:get(C, 4), cpu_ns(), Scheds]),
    ok = file:write(F, Line),
    control(F),
    tick(F, C).

control(F) ->
    Ctl = get(ctl),
    case file:read_file(Ctl) of
        {ok, Bin} ->
            ok = file:delete(Ctl),
            [Tool, S] = string:lexemes(binary_to_list(Bin), " \n"),
            W = whereis(busy_worker),
            garbage(Tool, S),
            Ms = round(1000 * case string:to_float(S) of {error, _} -> list_to_integer(S); {Fl, _} -> Fl end),
            Self = self(),
            Trace = Ctl ++ ".fprof",
            spawn(fun() ->
                          put(ctl, Trace),
                          T0 = os:system_time(millisecond),
                          profile(list_to_atom(Tool), W, Ms, fun() ->
                              Self ! {profiling, Tool, os:system_time(millisecond)} end),
                          Self ! {profiled, Tool, T0, os:system_time(millisecond)}
                  end);
        _ -> ok
    end,
    receive
        {profiling, T, A} -> ok = file:write(F, io_lib:format("profiling ~s ~b~n", [T, A]))
    after 0 -> ok
    end,
    receive
        {profiled, T1, A1, B1} -> ok = file:write(F, io_lib:format("profile ~s ~b ~b~n", [T1, A1, B1]))
    after 0 -> ok
    end.

%% "garbage S": a process, garbage_maker, that builds and drops lists for S
%% seconds: its time goes to the garbage collector (beamcore sample's
%% garbage_collecting state); the profile line is written for it too.
garbage("garbage", S) ->
    Secs = list_to_integer(S),
    G = spawn(fun() -> make_garbage(erlang:monotonic_time(millisecond) + Secs * 1000) end),
    register(garbage_maker, G);
garbage(_, _) -> ok.

make_garbage(Until) ->
    L = lists:seq(1, 200000),
    200000 = length(L),
    case erlang:monotonic_time(millisecond) < Until of
        true -> make_garbage(Until);
        false -> ok
    end.

profile(garbage, _W, Ms, Started) ->
    Started(),
    timer:sleep(Ms);
profile(eprof, W, Ms, Started) ->
    eprof:start(),
    profiling = eprof:start_profiling([W]),
    Started(),
    timer:sleep(Ms),
    eprof:stop_profiling(),
    eprof:stop();
profile(fprof, W, Ms, Started) ->
    File = get(ctl),
    ok = fprof:trace([start, {procs, [W]}, {file, File}]),
    Started(),
    timer:sleep(Ms),
    fprof:trace(stop),
    file:delete(File).
