%% Stub module for beamcore_crash_nif.c: segv/0 is replaced by the NIF.
-module(beamcore_crash_nif).
-export([load/1, segv/0, deep/1]).

load(Dir) ->
    ok = erlang:load_nif(filename:join(Dir, "beamcore_crash_nif"), 0).

segv() ->
    erlang:nif_error(not_loaded).

deep(_Frames) ->
    erlang:nif_error(not_loaded).
