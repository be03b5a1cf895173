%% Deaths that leave an erl_crash.dump instead of a core, for the crash dump
%% tests (testdata/capture.sh --dump):
%%   oom         a registered process (`grower`) grows its heap until
%%               eheap_alloc fails (run under `ulimit -v`): the slogan is
%%               "eheap_alloc: Cannot allocate N bytes of memory (of type "heap")."
%%   kernel_pid  a kernel process is killed: "Kernel pid terminated
%%               (application_controller) (killed)"
%%   links       a registered process (`many_links`) linked to 120,000
%%               others writes links.json (its pid and process_info(P, links),
%%               raw file writes) and halts with the slogan "many links": a
%%               dump whose Link list no fixed-size buffer holds
%% Run: erl -noshell -pa DIR -run beamcore_deaths oom|kernel_pid|links
%% Works on OTP 25 and 27.
-module(beamcore_deaths).
-export([oom/0, grow/1, kernel_pid/0, links/0, hub/2, linked/0]).

-define(LINKS, 120000).

oom() ->
    register(grower, spawn(?MODULE, grow, [[]])),
    ok.

%% Two words per step, all live: every GC has to find a larger heap, until
%% the allocation of one fails.
grow(L) ->
    grow([self() | L]).

kernel_pid() ->
    exit(whereis(application_controller), kill),
    ok.

links() ->
    register(many_links, spawn(?MODULE, hub, [?LINKS, self()])),
    receive {many_links, ready} -> ok end,
    Hub = whereis(many_links),
    {links, Links} = process_info(Hub, links),
    Pids = [pid_to_list(P) || P <- lists:sort(Links)],
    Json = ["{\"pid\":\"", pid_to_list(Hub), "\",\"registered_name\":\"many_links\",",
            "\"link_count\":", integer_to_list(length(Links)), ",\"links\":[",
            lists:join(",", ["\"" ++ P ++ "\"" || P <- Pids]), "]}\n"],
    {ok, F} = file:open("links.json", [write, raw, binary]),
    ok = file:write(F, iolist_to_binary(Json)),
    ok = file:close(F),
    erlang:halt("many links").

hub(0, Parent) ->
    Parent ! {many_links, ready},
    receive stop -> ok end;
hub(N, Parent) ->
    spawn_link(?MODULE, linked, []),
    hub(N - 1, Parent).

linked() ->
    receive stop -> ok end.
