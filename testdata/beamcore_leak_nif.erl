%% Stub module for beamcore_leak_nif.c: keep/1 and kept/0 are the NIF's.
-module(beamcore_leak_nif).
-export([load/1, keep/1, kept/0, resources/3, resources/0]).

load(Dir) ->
    ok = erlang:load_nif(filename:join(Dir, "beamcore_leak_nif"), 0).

keep(_Binary) ->
    erlang:nif_error(not_loaded).

kept() ->
    erlang:nif_error(not_loaded).

resources(_Returned, _AlsoKept, _KeptAlone) ->
    erlang:nif_error(not_loaded).

resources() ->
    erlang:nif_error(not_loaded).
