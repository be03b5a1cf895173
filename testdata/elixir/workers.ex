# Processes of BcApp (see application.ex).
defmodule BcApp.Worker do
  use GenServer

  def start_link(n), do: GenServer.start_link(__MODULE__, n, name: via({:pool, n}))

  def via(key), do: {:via, Registry, {BcApp.Registry, key}}

  @impl true
  def init(n), do: {:ok, %{n: n, jobs: Enum.to_list(1..(n * 10))}}

  @impl true
  def handle_call(:ping, _from, s), do: {:reply, :pong, s}
end

defmodule BcApp.Session do
  use GenServer, restart: :temporary

  def start_link(n), do: GenServer.start_link(__MODULE__, n, name: BcApp.Worker.via({:session, n}))

  # Each session builds a working set and keeps a little of it: the rest is
  # garbage on its heap until its next collection.
  @impl true
  def init(n) do
    scratch = for i <- 1..(500 + rem(n, 7) * 300), do: {i, Integer.to_string(i * n), [n, i]}
    kept = Enum.take(scratch, 20)
    {:ok, %{id: n, user: "user-#{n}", kept: kept, buffer: :binary.copy(<<n>>, 100 + n)}}
  end

  @impl true
  def handle_call(:ping, _from, s), do: {:reply, :pong, s}
end

defmodule BcApp.Store do
  use GenServer

  def start_link(_), do: GenServer.start_link(__MODULE__, 100_000, name: __MODULE__)

  @impl true
  def init(n) do
    table = Map.new(1..n, fn i -> {i, {"item-#{i}", i * 3, [:a, :b]}} end)
    {:ok, %{table: table, size: n}}
  end

  @impl true
  def handle_call(:size, _from, s), do: {:reply, s.size, s}
end

defmodule BcApp.Fixture do
  # Called by capture-elixir.sh's `elixir -e`: the application, its sessions and
  # tasks, the ground-truth collector (beamcore_real), then OUTDIR/app_ready.
  def start(out) do
    {:ok, _} = Application.ensure_all_started(:bc_app)
    for n <- 1..200, do: {:ok, _} = DynamicSupervisor.start_child(BcApp.SessionSup, {BcApp.Session, n})
    for n <- 1..50 do
      {:ok, _} = Task.Supervisor.start_child(BcApp.TaskSup, fn ->
        receive do
          :stop -> n
        end
      end)
    end
    Agent.update(BcApp.Counters, &%{&1 | hits: 200})
    for n <- 1..System.schedulers_online() do
      Agent.update({:via, PartitionSupervisor, {BcApp.Partitions, n}}, &Map.put(&1, n, n))
    end
    :ok = :beamcore_real.start()
    File.write!(Path.join(out, "app_ready"), "ready\n")
  end
end
