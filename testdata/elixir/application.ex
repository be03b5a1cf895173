# A small Mix-less Elixir application for testdata/capture-elixir.sh (compiled
# with elixirc; bc_app.app is written by the script): nested Supervisors, a
# DynamicSupervisor with children, a Task.Supervisor with tasks, a Registry
# with via-named workers, a PartitionSupervisor, an Agent and a GenServer
# holding a large state.
#
# BcApp.Supervisor (one_for_one)
#   Registry BcApp.Registry (unique keys)
#   BcApp.Store: GenServer, a large state (a map of ~100,000 entries)
#   Agent BcApp.Counters
#   BcApp.WorkSup (rest_for_one)
#     DynamicSupervisor BcApp.SessionSup: 200 BcApp.Session, {:via, Registry, {BcApp.Registry, {:session, N}}}
#     BcApp.PoolSup (one_for_one): 20 BcApp.Worker, {:via, Registry, {BcApp.Registry, {:pool, N}}}
#   Task.Supervisor BcApp.TaskSup: 50 tasks waiting for a message
#   PartitionSupervisor BcApp.Partitions: one Agent per scheduler
defmodule BcApp.Application do
  use Application

  @impl true
  def start(_type, _args) do
    children = [
      {Registry, keys: :unique, name: BcApp.Registry},
      BcApp.Store,
      %{id: BcApp.Counters, start: {Agent, :start_link, [fn -> %{hits: 0, misses: 0} end, [name: BcApp.Counters]]}},
      BcApp.WorkSup,
      {Task.Supervisor, name: BcApp.TaskSup},
      {PartitionSupervisor, child_spec: {Agent, fn -> %{} end}, name: BcApp.Partitions}
    ]
    Supervisor.start_link(children, strategy: :one_for_one, name: BcApp.Supervisor)
  end
end

defmodule BcApp.WorkSup do
  use Supervisor

  def start_link(arg), do: Supervisor.start_link(__MODULE__, arg, name: __MODULE__)

  @impl true
  def init(_arg) do
    children = [
      {DynamicSupervisor, name: BcApp.SessionSup, strategy: :one_for_one},
      BcApp.PoolSup
    ]
    Supervisor.init(children, strategy: :rest_for_one)
  end
end

defmodule BcApp.PoolSup do
  use Supervisor

  def start_link(arg), do: Supervisor.start_link(__MODULE__, arg, name: __MODULE__)

  @impl true
  def init(_arg) do
    children = for n <- 1..20, do: Supervisor.child_spec({BcApp.Worker, n}, id: {:worker, n})
    Supervisor.init(children, strategy: :one_for_one)
  end
end
