#!/usr/bin/env escript
%%! -noshell
%% OTP's crashdump_viewer on FILE without its GUI (the backend gen_server):
%% read_file/1, then general_info/0, processes/0, ets_tables(all), memory/0
%% and, for PID, proc_details/1 (its stack, messages and dictionary as the
%% viewer decodes them from the heap). Prints one JSON object on stdout;
%% exit 1 when the viewer rejects the file.
main([File | Rest]) ->
    %% observer_lib:report_progress/1 talks to a progress window when one is
    %% registered; without the GUI there is none and it does nothing
    {ok, _} = crashdump_viewer:start_link(),
    crashdump_viewer:read_file(File),
    %% read_file is a cast: the next call waits until it is done
    Info = case crashdump_viewer:general_info() of
               {ok, I, _} when element(1, I) =:= general_info -> I;
               Other -> io:format(standard_error, "cdv: ~p~n", [Other]), halt(1)
           end,
    {ok, Procs, PTW} = crashdump_viewer:processes(),
    {ok, Ets, ETW} = crashdump_viewer:ets_tables(all),
    {ok, Mem, MTW} = crashdump_viewer:memory(),
    Details = [detail(P) || P <- Rest],
    Out = [{<<"general">>, gi(Info)},
           {<<"processes">>, [proc(P) || P <- Procs]},
           {<<"ets">>, [ets(T) || T <- Ets]},
           {<<"memory">>, [{bin(K), bin(V)} || {K, V} <- Mem]},
           {<<"warnings">>, [bin(W) || W <- [PTW, ETW, MTW], W =/= []]},
           {<<"details">>, Details}],
    io:put_chars(json(Out)), io:nl(),
    halt(0).

gi(I) -> [{bin(K), bin(V)} || {K, V} <- lists:zip(record_info_fields(), tl(tuple_to_list(I)))].
record_info_fields() ->
    [created, slogan, system_vsn, compile_time, taints, node_name, num_atoms, num_procs,
     num_ets, num_timers, num_fun, mem_tot, mem_max, instr_info, thread].
%% #proc{} of 25.2.3's crashdump_viewer.hrl: the fields the process list shows
proc(P) ->
    [{K, bin(element(I, P))} || {K, I} <- [{<<"pid">>, 2}, {<<"state">>, 7}, {<<"msg_q_len">>, 9},
                                          {<<"reds">>, 19}, {<<"stack_heap">>, 22},
                                          {<<"memory">>, 37}]].
ets(T) -> [bin(X) || X <- tl(tuple_to_list(T))].
detail(Pid) ->
    case crashdump_viewer:proc_details(Pid) of
        {ok, P, TW} -> [{<<"pid">>, bin(Pid)}, {<<"detail">>, [bin(X) || X <- tl(tuple_to_list(P))]},
                        {<<"warning">>, bin(TW)}];
        Other -> [{<<"pid">>, bin(Pid)}, {<<"error">>, bin(Other)}]
    end.

bin(X) when is_binary(X) -> X;
bin(X) when is_list(X), X =/= [] -> case io_lib:printable_unicode_list(X) of
                                         true -> unicode:characters_to_binary(X);
                                         false -> bin2(X)
                                     end;
bin(X) -> bin2(X).
bin2(X) when is_binary(X) -> X;
bin2(X) -> unicode:characters_to_binary(io_lib:format("~0tp", [X])).

json(L) when is_list(L), L =/= [], is_tuple(hd(L)) ->
    ["{", lists:join(",", [[json(K), ":", json(V)] || {K, V} <- L]), "}"];
json(L) when is_list(L) -> ["[", lists:join(",", [json(X) || X <- L]), "]"];
json(B) when is_binary(B) -> [$", esc(B), $"].
esc(B) -> [case C of $" -> "\\\""; $\\ -> "\\\\"; C when C < 32 -> io_lib:format("\\u~4.16.0b", [C]); C -> <<C/utf8>> end
           || C <- unicode:characters_to_list(B)].
