%% Ground truth of a real application's node (RabbitMQ, an Elixir application),
%% written inside it just before a core is taken (testdata/capture-rabbitmq.sh,
%% testdata/capture-elixir.sh). The node is not ours: this module only looks.
%%
%% Load it with beamcore_scenario (whose ground-truth writer and JSON encoder it
%% uses) and call start/0 once (`-s beamcore_real start`, or from the
%% application): it spawns `beamcore_collector`, which waits for the file "go"
%% in $BEAMCORE_OUT, then writes there, with raw file writes only (no file
%% server, no other process touched):
%%   supervisors.json  every supervisor-like process (supervisor, supervisor2,
%%                     ranch_conns_sup, Elixir's DynamicSupervisor/Task.Supervisor,
%%                     PartitionSupervisor) with its which_children
%%   names.json        each process's own name as the application knows it
%%                     (registered name, '$process_label', RabbitMQ's
%%                     process_name, Elixir Registry via-names) and the label
%%   ports.json        erlang:ports() with port_info/2, erlang:memory(binary)
%%   ground_truth.json as beamcore_scenario writes it (processes, ETS, memory),
%%                     and "application" ($BEAMCORE_APP), "supervision" (the
%%                     trees of all of the above), "periodic" (processes
%%                     that ran on their own timers while the node was idle)
%%   memory.json       erlang:memory() and the allocators, after settling
%%   ready             the node is idle and may be cored
%% With BEAMCORE_GC=1 it then waits for the file "gc" (the caller took a core
%% that does not kill the node) and writes gc.json: per idle process the bytes
%% erlang:garbage_collect/1 frees (process_info memory before and after), then
%% "gc_done".
-module(beamcore_real).
-export([start/0, main/0]).

-define(SUP_MODULES, [supervisor, supervisor2, mirrored_supervisor, ranch_conns_sup,
                      'Elixir.DynamicSupervisor', 'Elixir.PartitionSupervisor',
                      'Elixir.Task.Supervisor']).
-define(BT_DEPTH, 64).

start() ->
    spawn(?MODULE, main, []),
    ok.

main() ->
    register(beamcore_collector, self()),
    Out = case os:getenv("BEAMCORE_OUT") of false -> "."; D -> D end,
    F = fun(Name) -> filename:join(Out, Name) end,
    wait_file(F("go")),
    erlang:system_flag(backtrace_depth, ?BT_DEPTH),
    settle(100),
    %% Asking supervisors for their children and servers for their states
    %% changes their heaps (and wakes hibernating ones): before the quiet
    %% spell and the passes that count.
    Sups = supervisors(),
    Supervision = supervision(Sups),
    write(F("supervisors.json"),
          beamcore_scenario:json({obj, [{supervisors, [sup_json(S) || S <- Sups]}]})),
    Via = registry_names(),
    Names = names(Via),
    write(F("names.json"), beamcore_scenario:json({obj, [{processes, Names}]})),
    {StateSizes, States} = states(os:getenv("BEAMCORE_STATES", ""), Via),
    write(F("states.json"), beamcore_scenario:json({obj, [{processes, States}]})),
    quiet(-1, 0, 60),
    Periodic = periodic(12000),
    settle(50),
    App = case os:getenv("BEAMCORE_APP") of false -> "unknown"; A -> A end,
    put(extra, [{application, str(App)},
                {supervision, Supervision},
                {periodic, [str(P) || P <- Periodic]},
                {state_flat_size, {obj, StateSizes}}]),
    write(F("ground_truth.json"), beamcore_scenario:ground_truth()),
    write(F("ports.json"), ports()),
    write(F("ground_truth.json"), beamcore_scenario:ground_truth()),
    write(F("ports.json"), ports()),
    erase(extra),
    garbage_collect(),
    beamcore_scenario:settle_memory(50),
    write(F("memory.json"), beamcore_scenario:memory_truth()),
    garbage_collect(),
    write(F("ready"), <<"ready">>),
    case os:getenv("BEAMCORE_GC") of
        "1" -> wait_file(F("gc")), write(F("gc.json"), gc(F("ground_truth.json"))),
               write(F("gc_done"), <<"done">>);
        _ -> ok
    end,
    receive after infinity -> ok end.

%% Poll for a file (raw: prim_file, no file server), every 200 ms.
wait_file(Name) ->
    case prim_file:read_file_info(Name) of
        {ok, _} -> ok;
        _ -> receive after 200 -> wait_file(Name) end
    end.

%% Until every other process waits (bounded: a node that keeps working is
%% written as it is; the core then shows which ones ran).
settle(0) -> ok;
settle(N) ->
    Busy = [P || P <- erlang:processes(), P =/= self(),
                 not lists:member(process_info(P, status),
                                  [{status, waiting}, {status, suspended}, undefined])],
    case Busy of
        [] -> ok;
        _ -> receive after 100 -> ok end, settle(N - 1)
    end.

%% Until as many processes hibernate for 5 s in a row (bounded: N s): idle
%% gen_server2 processes (RabbitMQ's queues, channels) hibernate a few seconds
%% after their last message; one doing so after the ground truth would not be
%% the process the ground truth describes.
quiet(_, _, 0) -> ok;
quiet(_, 5, _) -> ok;
quiet(Last, Same, N) ->
    receive after 1000 -> ok end,
    H = length([P || P <- erlang:processes(),
                     process_info(P, current_function) =:= {current_function, {erlang, hibernate, 3}}]),
    case H of
        Last -> quiet(H, Same + 1, N - 1);
        _ -> quiet(H, 0, N - 1)
    end.

%% The processes that ran on their own (their timers: RabbitMQ's memory
%% monitors, ra's failure detector, timer_server...) during Ms of an otherwise
%% idle node: more reductions than our two process_info requests cost. They may
%% run again between the ground truth and the core (ground truth "periodic":
%% compared loosely).
periodic(Ms) ->
    R0 = reductions(),
    receive after Ms -> ok end,
    R1 = reductions(),
    [P || {P, N1} <- R1, {_, N0} <- [lists:keyfind(P, 1, R0)], N1 > N0 + 1].

reductions() ->
    [{P, N} || P <- erlang:processes(), P =/= self(),
               {reductions, N} <- [process_info(P, reductions)]].

write(Name, Data) ->
    {ok, F} = file:open(Name, [write, raw, binary]),
    ok = file:write(F, [Data, $\n]),
    ok = file:close(F).

str(T) -> beamcore_scenario:str(T).
print(T) -> beamcore_scenario:print(T).

dict(P) ->
    case process_info(P, dictionary) of
        {dictionary, D} -> D;
        undefined -> []
    end.

%% The behaviour module of a supervisor-like process, from proc_lib's
%% '$initial_call' ({supervisor, CallbackModule, 1}, {supervisor2, init, 1},
%% {ranch_conns_sup, init, 4}, {'Elixir.DynamicSupervisor', init, 1}), or false.
sup_kind(P) ->
    case proplists:get_value('$initial_call', dict(P)) of
        {M, _, _} -> lists:member(M, ?SUP_MODULES) andalso M;
        _ -> false
    end.

%% [{Pid, Kind, Children | {error, Why}}] of every supervisor-like process.
supervisors() ->
    [{P, K, which_children(P)} || P <- erlang:processes(), K <- [sup_kind(P)], K =/= false].

which_children(P) ->
    try gen_server:call(P, which_children, 10000) of
        L when is_list(L) -> L;
        Other -> {error, Other}
    catch C:E -> {error, {C, E}}
    end.

sup_json({P, Kind, Children}) ->
    D = dict(P),
    {obj, [{pid, str(P)},
           {registered_name, reg_name(P)},
           {behaviour, Kind},
           {initial_call, beamcore_scenario:pl_initial_call(D)},
           {ancestors, beamcore_scenario:ancestors(D)},
           {children, case Children of
                          {error, _} -> null;
                          _ -> [child_json(C) || C <- Children]
                      end},
           {error, case Children of {error, Why2} -> print(Why2); _ -> null end}]}.

child_json({Id, Child, Type, Mods}) ->
    {obj, [{id, print(Id)},
           {pid, case Child of _ when is_pid(Child) -> str(Child); _ -> null end},
           {child, case Child of _ when is_pid(Child) -> null; _ -> print(Child) end},
           {type, Type},
           {modules, case Mods of dynamic -> dynamic; _ -> [str(M) || M <- Mods, is_atom(M)] end}]}.

reg_name(P) ->
    case process_info(P, registered_name) of
        {registered_name, N} when is_atom(N) -> str(N);
        _ -> null
    end.

%% The trees as which_children tells them, in check_tree.py's shape: roots are
%% supervisor-like processes whose parent (first of '$ancestors') is none;
%% a child the parent's spec calls a supervisor but that is not one we can
%% ask (a supervisor_bridge): children null.
supervision(Sups) ->
    ByPid = maps:from_list([{P, C} || {P, _, C} <- Sups]),
    Roots = [P || {P, _, _} <- Sups, not maps:is_key(parent(P), ByPid)],
    [sup_tree(P, supervisor, ByPid, 0) || P <- Roots].

parent(P) ->
    case proplists:get_value('$ancestors', dict(P), []) of
        [A | _] when is_atom(A) -> whereis(A);
        [A | _] -> A;
        _ -> undefined
    end.

sup_tree(P, Type, ByPid, Depth) ->
    Children = case maps:get(P, ByPid, none) of
                   L when is_list(L), Depth < 64 ->
                       [sup_tree(C, T, ByPid, Depth + 1) || {_, C, T, _} <- L, is_pid(C)];
                   _ when Type =:= supervisor -> null;
                   _ -> []
               end,
    {obj, [{pid, str(P)},
           {registered_name, reg_name(P)},
           {type, Type},
           {children, Children}]}.

%% Each process's name as the application knows it, and one label chosen as
%% issue 21 says: registered name; else '$process_label' (OTP 27+); else a
%% library's own name (RabbitMQ's process_name, an Elixir Registry via-name);
%% else proc_lib's '$initial_call'; else the initial call.
names(Via) ->
    [name_json(P, Via) || P <- erlang:processes(), P =/= self()].

%% erts_debug:flat_size(sys:get_state(P)) of the servers $BEAMCORE_STATES
%% names, comma-separated: a registered name (also ground truth
%% "state_flat_size", as beamcore_scenario writes it), "registry" (every
%% process with an Elixir Registry via-name), "process_name:TAG" (every process
%% whose RabbitMQ process_name is {TAG, _}). Only sys-aware servers.
states(Spec, Via) ->
    Items = string:lexemes(Spec, ","),
    Named = [{list_to_atom(I), whereis(list_to_atom(I))} || I <- Items, lists:member($:, I) =:= false,
                                                             I =/= "registry"],
    Reg = case lists:member("registry", Items) of
              true -> lists:usort([P || {P, _} <- Via]);
              false -> []
          end,
    Tags = [list_to_atom(T) || "process_name:" ++ T <- Items],
    Tagged = [P || Tags =/= [], P <- erlang:processes(),
                   case lists:keyfind(process_name, 1, dict(P)) of
                       {_, {Tag, _}} -> lists:member(Tag, Tags);
                       _ -> false
                   end],
    Size = fun(P) -> try erts_debug:flat_size(sys:get_state(P, 10000)) catch _:_ -> null end end,
    Sizes = [{N, Size(P)} || {N, P} <- Named, is_pid(P)],
    Rows = [{obj, [{pid, str(P)}, {registered_name, str(N)}, {flat_size, S}]}
            || {N, P} <- Named, is_pid(P), {_, S} <- [lists:keyfind(N, 1, Sizes)]]
        ++ [{obj, [{pid, str(P)}, {label, label_of(P, Via)}, {flat_size, Size(P)}]}
            || P <- Reg ++ Tagged],
    {[{N, S} || {N, S} <- Sizes, is_integer(S)], Rows}.

label_of(P, Via) ->
    {obj, KVs} = name_json(P, Via),
    proplists:get_value(label, KVs).

name_json(P, Via) ->
    D = dict(P),
    Reg = reg_name(P),
    Label = case lists:keyfind('$process_label', 1, D) of {_, L} -> L; false -> undefined end,
    PName = case lists:keyfind(process_name, 1, D) of {_, N} -> N; false -> undefined end,
    Names = [V || {Pid, V} <- Via, Pid =:= P],
    Init = case process_info(P, initial_call) of {initial_call, I} -> I; _ -> undefined end,
    PL = beamcore_scenario:pl_initial_call(D),
    {Chosen, Source} =
        if Reg =/= null -> {Reg, registered_name};
           Label =/= undefined -> {print(Label), process_label};
           PName =/= undefined -> {print(PName), process_name};
           Names =/= [] -> {str(via_text(hd(Names))), registry};
           PL =/= null -> {PL, proc_lib_initial_call};
           true -> {beamcore_scenario:mfa(Init), initial_call}
        end,
    {obj, [{pid, str(P)},
           {registered_name, Reg},
           {process_label, opt(Label)},
           {process_name, opt(PName)},
           {registry, [{obj, [{registry, print(R)}, {key, print(K)},
                              {elixir, str(via_text({R, K}))}]} || {R, K} <- Names]},
           {proc_lib_initial_call, PL},
           {initial_call, beamcore_scenario:mfa(Init)},
           {label, Chosen},
           {label_source, Source}]}.

opt(undefined) -> null;
opt(T) -> print(T).

%% {:via, Registry, {Reg, Key}} as Elixir prints it.
via_text({R, K}) ->
    elixir_inspect({via, 'Elixir.Registry', {R, K}}).

elixir_inspect(T) ->
    case erlang:function_exported('Elixir.Kernel', inspect, 1) of
        true -> binary_to_list('Elixir.Kernel':inspect(T));
        false -> lists:flatten(io_lib:print(T, 1, 100000000, -1))
    end.

%% [{Pid, {Registry, Key}}] of every Elixir Registry (a supervisor whose
%% callback is Elixir.Registry.Supervisor, registered under the registry's
%% name), read with Registry.select/2: ETS reads only.
registry_names() ->
    case erlang:function_exported('Elixir.Registry', select, 2) of
        false -> [];
        true ->
            Regs = [R || R <- registered(),
                         P <- [whereis(R)], is_pid(P),
                         proplists:get_value('$initial_call', dict(P)) =:=
                             {supervisor, 'Elixir.Registry.Supervisor', 1}],
            [{Pid, {R, K}}
             || R <- Regs,
                {K, Pid} <- try 'Elixir.Registry':select(R, [{{'$1', '$2', '_'}, [], [{{'$1', '$2'}}]}])
                            catch _:_ -> [] end]
    end.

-define(PORT_ITEMS, [id, name, connected, links, monitors, monitored_by, queue_size,
                     input, output, os_pid, memory]).

ports() ->
    Ps = [port_json(P) || P <- erlang:ports()],
    beamcore_scenario:json({obj, [{binary_memory, erlang:memory(binary)},
                                  {ports, [P || P <- Ps, P =/= closed]}]}).

port_json(P) ->
    Items = [{I, erlang:port_info(P, I)} || I <- ?PORT_ITEMS],
    case lists:keyfind(undefined, 2, Items) of
        {id, _} -> closed;
        _ ->
            G = fun(I) -> case proplists:get_value(I, Items) of {I, V} -> V; _ -> undefined end end,
            {obj, [{port, str(P)},
                   {id, G(id)},
                   {name, str(G(name))},
                   {connected, str(G(connected))},
                   {links, [str(L) || L <- G(links)]},
                   {monitors, [print(M) || M <- G(monitors)]},
                   {monitored_by, [str(M) || M <- G(monitored_by), is_pid(M)]},
                   {queue_size, G(queue_size)},
                   {input, G(input)},
                   {output, G(output)},
                   {os_pid, case G(os_pid) of I when is_integer(I) -> I; _ -> null end},
                   {memory, G(memory)},
                   {inet, inet_json(P, G(name))}]}
    end.

%% The addresses of an inet socket port (tcp_inet/udp_inet), null for others.
inet_json(P, Name) when Name =:= "tcp_inet"; Name =:= "udp_inet" ->
    Addr = fun({ok, {IP, Port}}) -> str(inet:ntoa(IP) ++ ":" ++ integer_to_list(Port));
              (_) -> null end,
    KV = fun({ok, L}) -> {obj, [{K, V} || {K, V} <- L, is_integer(V)]};
            (_) -> null end,
    {obj, [{sockname, Addr(catch prim_inet:sockname(P))},
           {peername, Addr(catch prim_inet:peername(P))},
           %% bytes through the socket (port_info input/output count only what
           %% passes through erts, 0 for an active socket), and the driver's
           %% user-level buffer size
           {stat, KV(catch prim_inet:getstat(P, [recv_oct, recv_cnt, send_oct, send_cnt, send_pend]))},
           {opts, KV(catch prim_inet:getopts(P, [buffer, recbuf, sndbuf]))}]};
inet_json(_, _) -> null.

%% After the core: each process that was idle in the ground truth, collected
%% by erlang:garbage_collect/1, its memory and heap before and after.
gc(TruthFile) ->
    {ok, Bin} = prim_file:read_file(TruthFile),
    Idle = idle_pids(Bin),
    Rows = [gc_one(list_to_pid(P)) || P <- Idle],
    beamcore_scenario:json({obj, [{processes, [R || R <- Rows, R =/= dead]}]}).

gc_one(P) ->
    I = [memory, total_heap_size, heap_size, status],
    case process_info(P, I) of
        undefined -> dead;
        Before ->
            true = erlang:garbage_collect(P),
            case process_info(P, I) of
                undefined -> dead;
                After ->
                    G = fun(L, K) -> proplists:get_value(K, L) end,
                    {obj, [{pid, str(P)},
                           {status_before, G(Before, status)},
                           {memory_before, G(Before, memory)},
                           {memory_after, G(After, memory)},
                           {freed, G(Before, memory) - G(After, memory)},
                           {total_heap_size_before, G(Before, total_heap_size)},
                           {total_heap_size_after, G(After, total_heap_size)},
                           {heap_size_before, G(Before, heap_size)},
                           {heap_size_after, G(After, heap_size)}]}
            end
    end.

%% The pids of the processes ground_truth.json lists as waiting (a scan of
%% our own output: each process object starts {"pid":"<...>" and has
%% "status":"..." before its next object). The collector is left out.
idle_pids(Bin) ->
    Self = pid_to_list(self()),
    Parts = binary:split(Bin, <<"{\"pid\":\"">>, [global]),
    [Pid || Part <- tl(Parts),
            [PidB, Rest] <- [binary:split(Part, <<"\"">>)],
            Pid <- [binary_to_list(PidB)],
            Pid =/= Self,
            binary:match(Rest, <<"\"status\":\"waiting\"">>) =/= nomatch,
            status_first(Rest)].

%% "status":"waiting" belongs to this object when it comes before any
%% other "status" key.
status_first(Rest) ->
    case binary:match(Rest, <<"\"status\":\"">>) of
        {S, L} -> binary:part(Rest, S + L, 7) =:= <<"waiting">>;
        nomatch -> false
    end.
