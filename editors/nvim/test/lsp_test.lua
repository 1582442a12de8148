-- Drives `vox lsp` from Neovim through editors/nvim/vox.lua, as a user's
-- init.lua would: open a .vox file with an error, wait for its
-- diagnostics, ask hover and definition. Run by the Go test
-- e2e/editors (TestNeovimLSP), which sets:
--   VOX_NVIM_PLUGIN  the path of editors/nvim/vox.lua
--   VOX_BIN          the vox binary to run as the server
--   VOX_NVIM_FILE    the .vox file to open
--   VOX_NVIM_OUT     where to write the results, as JSON
-- The Go test checks the results; this script only gathers them, and
-- writes what failed (an "error" field) rather than hanging.
local out = os.getenv("VOX_NVIM_OUT")
local results = { version = vim.version() }

-- position returns the 0-based line and character of the k-th character
-- of the first `needle` in the buffer.
local function position(bufnr, needle, k)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local col = line:find(needle, 1, true)
    if col then
      return { line = i - 1, character = col - 1 + (k or 0) }
    end
  end
  error("no " .. needle .. " in the buffer")
end

-- clients returns the clients attached to a buffer (all when bufnr is
-- nil): vim.lsp.get_clients from 0.10, buf_get_clients and
-- get_active_clients before.
local function clients_of(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(bufnr and { bufnr = bufnr } or nil)
  end
  local list = {}
  for _, c in pairs(bufnr and vim.lsp.buf_get_clients(bufnr) or vim.lsp.get_active_clients()) do
    table.insert(list, c)
  end
  return list
end

local function request(bufnr, method, pos)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = pos,
  }
  local answers, err = vim.lsp.buf_request_sync(bufnr, method, params, 10000)
  if not answers then
    error(method .. ": " .. tostring(err))
  end
  for _, answer in pairs(answers) do
    if answer.error then
      error(method .. ": " .. vim.inspect(answer.error))
    end
    return answer.result
  end
  error(method .. ": no client answered")
end

local function run()
  dofile(os.getenv("VOX_NVIM_PLUGIN")).setup({ cmd = { os.getenv("VOX_BIN"), "lsp" } })
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("VOX_NVIM_FILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  results.filetype = vim.bo[bufnr].filetype
  results.commentstring = vim.bo[bufnr].commentstring

  -- Bounded waits, polled: the server answers in milliseconds, the bound
  -- is for a loaded machine.
  vim.wait(30000, function()
    return #clients_of(bufnr) > 0 and #vim.diagnostic.get(bufnr) > 0
  end, 50)
  local clients = {}
  for _, c in ipairs(clients_of(bufnr)) do
    table.insert(clients, { id = c.id, name = c.name, root_dir = c.config.root_dir })
  end
  results.clients = clients
  results.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(results.diagnostics, {
      lnum = d.lnum,
      col = d.col,
      severity = d.severity,
      message = d.message,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
      source = d.source,
    })
  end

  -- What on_attach set for the buffer: completion through the server,
  -- K and gd.
  results.omnifunc = vim.bo[bufnr].omnifunc
  results.map_k = vim.fn.maparg("K", "n")
  results.map_gd = vim.fn.maparg("gd", "n")

  local hover = request(bufnr, "textDocument/hover", position(bufnr, "add(2", 1))
  results.hover = hover and hover.contents
  local def = request(bufnr, "textDocument/definition", position(bufnr, "add(2", 1))
  if def and def[1] then
    def = def[1]
  end
  results.definition = def

  -- A second buffer of the same root attaches to the same server.
  vim.cmd("edit " .. vim.fn.fnameescape(vim.fn.fnamemodify(os.getenv("VOX_NVIM_FILE"), ":h") .. "/other.vox"))
  local other = vim.api.nvim_get_current_buf()
  vim.wait(30000, function()
    return #clients_of(other) > 0
  end, 50)
  local a, b = clients_of(bufnr), clients_of(other)
  results.same_client = #a == 1 and #b == 1 and a[1].id == b[1].id
  results.clients_running = #clients_of(nil)
end

local ok, err = pcall(run)
if not ok then
  results.error = tostring(err)
end
local f = assert(io.open(out, "w"))
f:write(vim.fn.json_encode(results))
f:close()
vim.cmd("qa!")
