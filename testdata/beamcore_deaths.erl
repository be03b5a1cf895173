%% Deaths that leave an erl_crash.dump instead of a core, for the crash dump
%% tests (testdata/capture.sh --dump):
%%   oom         a registered process (`grower`) grows its heap until
%%               eheap_alloc fails (run under `ulimit -v`): the slogan is
%%               "eheap_alloc: Cannot allocate N bytes of memory (of type "heap")."
%%   kernel_pid  a kernel process is killed: "Kernel pid terminated
%%               (application_controller) (killed)"
%% Run: erl -noshell -pa DIR -run beamcore_deaths oom|kernel_pid
%% Works on OTP 25 and 27.
-module(beamcore_deaths).
-export([oom/0, grow/1, kernel_pid/0]).

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
