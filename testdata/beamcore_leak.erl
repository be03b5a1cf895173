%% A node that leaks, for beamcore's leak forensics (issue 32), each leak with
%% its truth written by the node itself (leak.json, raw file writes: the file
%% server's heap stays out of it):
%%   atoms: a loop makes MADE atoms user_1, user_2, ... in one run (nothing
%%   else makes atoms meanwhile: their indexes are atom_count_before ..
%%   atom_count_before + MADE - 1); atom_hoarder, idle, holds the first
%%   HOARDED of them in a list.
%%   slices: slice_keeper, idle, holds SLICES sub-binaries of SLICE bytes
%%   (binary:part/3), each of a BIG-byte binary nothing else references: it
%%   keeps SLICES * BIG bytes alive for SLICES * SLICE it uses (the node's
%%   binary:referenced_byte_size/1 of each says so).
%%   ETS slices: slice_keeper's table slice_table holds ETS_SLICES rows, each
%%   a sub-binary of ETS_SLICE bytes of an ETS_BIG-byte binary nothing else
%%   references (the node's own sums over ets:tab2list/1 are the truth).
%%   port slices: port_keeper's TCP socket, its peer never reading, sends a
%%   PORT_FILL-byte binary that fills the kernel's buffers, then PORT_SLICES
%%   sub-binaries of PORT_SLICE bytes, each of its own PORT_BIG-byte binary,
%%   queued in the driver (port_info queue_size is the truth of the bytes it
%%   holds to write; the binaries it keeps are the filler and the sliced
%%   ones, whole).
%%   native: bin_owner, idle, holds NATIVE binaries of NATIVE_SIZE bytes
%%   ("LEAK" and its number first), and the NIF (beamcore_leak_nif.c) keeps a
%%   copy of each in an environment of its own: each refc 2, one reference
%%   in a heap (the NIF's own count is the truth).
%%   resources: res_owner, idle, holds RES_HELD resources of the NIF's type
%%   leaky, RES_KEPT of them kept by the NIF too, which keeps RES_ALONE more
%%   no term holds (its destructor's count of those alive is the truth); its
%%   table res_table holds RES_ETS more, the only term referencing each.
%% Modes:
%%   leak  make 40,000 atoms (the table of +t 65536 is then over half full),
%%         write leak.json, touch ready and wait (the script takes a gcore,
%%         then kill -USR1 for erl_crash.dump)
%%   full  write leak.json, then make atoms until the table is full: the VM
%%         dies "no more index entries in atom_tab" and writes erl_crash.dump
%% Run: erl -noshell +t N -pa DIR -run beamcore_leak start leak|full   (cwd = DIR)
-module(beamcore_leak).
-export([start/1, hoard/1, keep_slices/1, own_port/1, own_binaries/1, own_resources/1]).

-define(MADE, 40000).
-define(HOARDED, 5000).
-define(SLICES, 200).          %% slices of SLICE bytes, each of its own BIG-byte binary
-define(SLICE, 100).
-define(BIG, 65536).
-define(ETS_SLICES, 100).      %% rows of slice_table: a slice of ETS_SLICE bytes each,
-define(ETS_SLICE, 100).       %% each of its own ETS_BIG-byte binary
-define(ETS_BIG, 40000).
-define(PORT_FILL, 200000).    %% bytes that fill the pipe (the rest queued),
-define(PORT_SLICES, 100).     %% then commands of a PORT_SLICE-byte slice each,
-define(PORT_SLICE, 1000).     %% (over 256 bytes: the queue references the binary)
-define(PORT_BIG, 40000).      %% of its own PORT_BIG-byte binary
-define(NATIVE, 50).           %% binaries of NATIVE_SIZE bytes the NIF keeps too
-define(NATIVE_SIZE, 10000).
-define(RES_HELD, 1000).       %% NIF resources res_owner holds,
-define(RES_KEPT, 500).        %% of which the NIF keeps a reference too,
-define(RES_ALONE, 2000).      %% and those the NIF alone keeps
-define(RES_ETS, 300).         %% NIF resources only res_table holds

start([Mode]) ->
    {ok, Dir} = file:get_cwd(),
    spawn(fun() -> run(list_to_atom(Mode), Dir) end),
    ok.

run(leak, Dir) ->
    beamcore_leak_nif:load(Dir),
    {ok, F} = warm(Dir),
    Hoarder = spawn(?MODULE, hoard, [self()]),
    register(atom_hoarder, Hoarder),
    Before = erlang:system_info(atom_count),
    Atoms = make(1, ?MADE, []),
    %% (the loop's atoms are one run: nothing else made one meanwhile)
    true = erlang:system_info(atom_count) =:= Before + ?MADE,
    Hoarder ! {hold, lists:sublist(lists:reverse(Atoms), ?HOARDED)},
    receive held -> ok end,
    Keeper = spawn(?MODULE, keep_slices, [self()]),
    register(slice_keeper, Keeper),
    {Slices, EtsSlices} = receive {slices, S, E} -> {S, E} end,
    PortOwner = spawn(?MODULE, own_port, [self()]),
    register(port_keeper, PortOwner),
    PortTruth = receive {port, PT} -> PT end,
    Owner = spawn(?MODULE, own_binaries, [self()]),
    register(bin_owner, Owner),
    {Kept, KeptBytes} = receive {kept, K} -> K end,
    ResOwner = spawn(?MODULE, own_resources, [self()]),
    register(res_owner, ResOwner),
    {Alive, Native} = receive {resources, Counts} -> Counts end,
    Binary = erlang:memory(binary),
    %% the count last: what the slices and the NIF made counted too
    truth(F, Before, erlang:system_info(atom_count), ?MADE, Hoarder, ?HOARDED, Keeper, Slices,
          EtsSlices),
    {ok, PF} = file:open(filename:join(Dir, "port.json"), [write, raw]),
    ok = file:write(PF, PortTruth),
    ok = file:close(PF),
    {ok, N} = file:open(filename:join(Dir, "native.json"), [write, raw]),
    ok = file:write(N, io_lib:format("{\"bin_owner\": \"~s\", \"kept\": ~b, \"kept_bytes\": ~b, "
                                      "\"size\": ~b, \"first_bytes\": \"LEAK\", "
                                      "\"binary_memory\": ~b, \"res_owner\": \"~s\", "
                                      "\"resources_held\": ~b, \"resources_alive\": ~b, "
                                      "\"resources_native\": ~b, \"res_table\": \"res_table\", "
                                      "\"resources_in_ets\": ~b}~n",
                                      [pid_to_list(Owner), Kept, KeptBytes, ?NATIVE_SIZE, Binary,
                                       pid_to_list(ResOwner), ?RES_HELD, Alive, Native, ?RES_ETS])),
    ok = file:close(N),
    {ok, R} = file:open(filename:join(Dir, "ready"), [write, raw]),
    ok = file:close(R),
    receive never -> ok end;
run(full, Dir) ->
    {ok, F} = warm(Dir),
    Before = erlang:system_info(atom_count),
    truth(F, Before, Before, 0, self(), 0, self(), {0, 0, 0}, {0, 0, 0}),
    make_forever(1).

%% What the truth and the ready file make (the modules they load, their
%% atoms) made before the count is taken: the truth file opened, its text
%% formatted once, the ready file's open tried.
warm(Dir) ->
    {ok, F} = file:open(filename:join(Dir, "leak.json"), [write, raw]),
    _ = lists:flatten(io_lib:format("~s ~b ~b", [os:getpid(), 1, erlang:system_info(atom_limit)])),
    _ = pid_to_list(self()),
    _ = lists:sum([binary:referenced_byte_size(binary:part(binary:copy(<<1>>, 100), 1, 2))]),
    {ok, R} = file:open(filename:join(Dir, "ready.tmp"), [write, raw]),
    ok = file:close(R),
    {ok, R2} = file:open(filename:join(Dir, "native.json"), [write, raw]),
    ok = file:close(R2),
    {ok, F}.

make(I, N, Acc) when I > N -> Acc;
make(I, N, Acc) -> make(I + 1, N, [list_to_atom("user_" ++ integer_to_list(I)) | Acc]).

make_forever(I) ->
    _ = list_to_atom("user_" ++ integer_to_list(I)),
    make_forever(I + 1).

%% Makes its slices, each of a binary of its own, drops the binaries and
%% collects its heap (so only the slices reference them), says what they
%% reference and keep, then holds them, idle.
keep_slices(From) ->
    T = ets:new(slice_table, [named_table, public, set]),
    [true = ets:insert(T, {I, binary:part(binary:copy(<<I:32>>, ?ETS_BIG div 4), 7, ?ETS_SLICE)})
     || I <- lists:seq(1, ?ETS_SLICES)],
    Slices = [binary:part(binary:copy(<<I:32>>, ?BIG div 4), 10, ?SLICE) || I <- lists:seq(1, ?SLICES)],
    Ets = ets_slices(T),
    %% (the rows' copies the sums made are garbage now: collected)
    erlang:garbage_collect(),
    Used = lists:sum([byte_size(S) || S <- Slices]),
    Kept = lists:sum([binary:referenced_byte_size(S) || S <- Slices]),
    From ! {slices, {length(Slices), Used, Kept}, Ets},
    hold(Slices).

ets_slices(T) ->
    Rows = ets:tab2list(T),
    {length(Rows), lists:sum([byte_size(S) || {_, S} <- Rows]),
     lists:sum([binary:referenced_byte_size(S) || {_, S} <- Rows])}.

%% Connects a TCP pair, fills the sender's kernel buffers, queues its slices,
%% says what the driver queue holds (queue_size; the binaries it keeps,
%% whole), then holds the sockets, idle (its own references collected).
own_port(From) ->
    %% a TCP pair whose peer never reads (the inet driver queues vectors that
    %% reference the binaries; a spawn driver's output is a flat copy), the
    %% watermarks past what is sent: no busy state, no send suspended
    Opts = [binary, {active, false}, {ip, {127, 0, 0, 1}}, {recbuf, 4096}, {sndbuf, 4096}],
    {ok, L} = gen_tcp:listen(0, Opts),
    {ok, PortNo} = inet:port(L),
    {ok, P} = gen_tcp:connect({127, 0, 0, 1}, PortNo, [{high_watermark, 1 bsl 26},
                                                      {low_watermark, 1 bsl 25} | Opts -- [{ip, {127, 0, 0, 1}}]]),
    {ok, A} = gen_tcp:accept(L),
    ok = gen_tcp:send(P, binary:copy(<<"F">>, ?PORT_FILL)),
    [ok = gen_tcp:send(P, binary:part(binary:copy(<<I:32>>, ?PORT_BIG div 4), 5, ?PORT_SLICE))
     || I <- lists:seq(1, ?PORT_SLICES)],
    erlang:garbage_collect(),
    %% (the kernel takes a little more while the peer's window allows: the
    %% queue's size once it has held still for a second)
    Q = settled_queue(P, -1),
    %% (the filler kept whole when part of it is still queued)
    Fill = case Q > ?PORT_SLICES * ?PORT_SLICE of true -> ?PORT_FILL; false -> 0 end,
    From ! {port, io_lib:format("{\"port\": \"~s\", \"queue_size\": ~b, \"binaries\": ~b, "
                                "\"kept_alive_bytes\": ~b}~n",
                                [erlang:port_to_list(P), Q, ?PORT_SLICES + min(Fill, 1),
                                 Fill + ?PORT_SLICES * ?PORT_BIG])},
    hold({L, P, A}).

settled_queue(P, Last) ->
    {queue_size, Q} = erlang:port_info(P, queue_size),
    case Q =:= Last of
        true -> Q;
        false -> timer:sleep(1000), settled_queue(P, Q)
    end.

%% Makes its binaries, has the NIF keep a copy of each, says what the NIF
%% keeps, then holds them, idle.
own_binaries(From) ->
    Bins = [<<"LEAK", I:32, (binary:copy(<<I:8>>, ?NATIVE_SIZE - 8))/binary>> || I <- lists:seq(1, ?NATIVE)],
    [ok = beamcore_leak_nif:keep(B) || B <- Bins],
    erlang:garbage_collect(),
    From ! {kept, beamcore_leak_nif:kept()},
    hold(Bins).

%% Has the NIF make its resources, says how many are alive and how many
%% native code holds, then holds those it was given, idle.
own_resources(From) ->
    Res = beamcore_leak_nif:resources(?RES_HELD, ?RES_KEPT, ?RES_ALONE),
    T = ets:new(res_table, [named_table, public, set]),
    ok = store_resources(T),
    %% (the table's now: this process's copies collected)
    erlang:garbage_collect(),
    From ! {resources, beamcore_leak_nif:resources()},
    hold(Res).

store_resources(T) ->
    Rs = beamcore_leak_nif:resources(?RES_ETS, 0, 0),
    [true = ets:insert(T, {I, R}) || {I, R} <- lists:zip(lists:seq(1, ?RES_ETS), Rs)],
    ok.

%% Holds what it is given, idle.
hoard(From) ->
    receive {hold, Atoms} -> From ! held, hold(Atoms) end.

hold(Atoms) ->
    receive never -> hold(Atoms) end.

truth(F, Before, After, Made, Hoarder, Hoarded, Keeper, {NSlices, Used, Kept}, {ENSlices, EUsed, EKept}) ->
    Json = io_lib:format("{\"os_pid\": \"~s\", \"atom_limit\": ~b, \"atom_count_before\": ~b, "
                         "\"atom_count\": ~b, \"made\": ~b, \"pattern\": \"user_<N>\", \"maker\": \"~s\", "
                         "\"hoarder\": \"~s\", \"hoarded\": ~b, \"slice_keeper\": \"~s\", "
                         "\"slices\": ~b, \"slice_bytes\": ~b, \"kept_alive_bytes\": ~b, "
                         "\"ets_table\": \"slice_table\", \"ets_slices\": ~b, \"ets_slice_bytes\": ~b, "
                         "\"ets_kept_alive_bytes\": ~b}~n",
                         [os:getpid(), erlang:system_info(atom_limit), Before, After, Made, ?MODULE,
                          pid_to_list(Hoarder), Hoarded, pid_to_list(Keeper), NSlices, Used, Kept, ENSlices, EUsed, EKept]),
    ok = file:write(F, Json),
    ok = file:close(F).
