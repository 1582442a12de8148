-- Vox for Neovim, 0.7 and later (Debian's 0.7.2 up to 0.11): the `vox`
-- filetype for *.vox files, its comment settings, and the language server
-- `vox lsp` started for every vox buffer, one server per project root.
-- No plugin is needed (nvim-lspconfig neither).
--
-- Use it by copying this file to ~/.config/nvim/lua/vox.lua and adding to
-- init.lua:
--
--   require("vox").setup()
--
-- or, without copying: dofile("/path/to/vox-mcp/editors/nvim/vox.lua").setup()
--
-- Options (all optional): setup({
--   cmd = { "vox", "lsp" },            -- the server's command line
--   root_markers = { ".git" },         -- a root is the nearest folder holding one
--   keymaps = true,                    -- K hover and gd definition in vox buffers
-- })
--
-- Why not vim.lsp.config (0.11) or vim.lsp.start (0.8): Neovim 0.7 has
-- neither, so on 0.7 the server is started with vim.lsp.start_client and
-- each buffer attached with vim.lsp.buf_attach_client; where vim.lsp.start
-- exists it is used instead (start_client is deprecated from 0.11), with the
-- same name, command and root, so both find the same running server again.
local M = {}

local defaults = {
  cmd = { "vox", "lsp" },
  root_markers = { ".git" },
  keymaps = true,
}

-- clients maps a root folder to the id of the client started for it
-- (the vim.lsp.start_client path only: vim.lsp.start keeps its own).
local clients = {}

-- root_of returns the nearest folder above the buffer's file that holds
-- one of the markers, else the file's own folder.
local function root_of(bufnr, markers)
  local file = vim.api.nvim_buf_get_name(bufnr)
  local dir = file ~= "" and vim.fn.fnamemodify(file, ":p:h") or vim.fn.getcwd()
  for _, marker in ipairs(markers) do
    local found = vim.fn.finddir(marker, dir .. ";")
    if found ~= "" then
      -- ":p" ends a folder with "/": the first ":h" drops that, the second the marker.
      return vim.fn.fnamemodify(found, ":p:h:h")
    end
    found = vim.fn.findfile(marker, dir .. ";")
    if found ~= "" then
      return vim.fn.fnamemodify(found, ":p:h")
    end
  end
  return dir
end

local function on_attach(opts)
  return function(_, bufnr)
    vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
    if opts.keymaps then
      local map = { noremap = true, silent = true }
      vim.api.nvim_buf_set_keymap(bufnr, "n", "K", "<cmd>lua vim.lsp.buf.hover()<CR>", map)
      vim.api.nvim_buf_set_keymap(bufnr, "n", "gd", "<cmd>lua vim.lsp.buf.definition()<CR>", map)
    end
  end
end

-- attach starts (or finds) the server for the buffer's root and attaches
-- the buffer to it.
local function attach(bufnr, opts)
  local root = root_of(bufnr, opts.root_markers)
  local config = {
    name = "vox",
    cmd = opts.cmd,
    root_dir = root,
    on_attach = on_attach(opts),
  }
  if vim.lsp.start then
    vim.lsp.start(config, { bufnr = bufnr })
    return
  end
  local id = clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(config)
    if not id then
      vim.notify("vox: could not start " .. table.concat(opts.cmd, " "), vim.log.levels.ERROR)
      return
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

function M.setup(user)
  local opts = vim.tbl_extend("force", defaults, user or {})
  local group = vim.api.nvim_create_augroup("vox", { clear = true })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group,
    pattern = "*.vox",
    -- Not setfiletype: a detection of .vox that a newer Neovim might add
    -- for another language must not win.
    command = "setlocal filetype=vox",
  })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "vox",
    callback = function(args)
      -- Vox comments are // and # to the end of the line (no block comment).
      vim.bo[args.buf].commentstring = "// %s"
      vim.bo[args.buf].comments = "://,:#"
      attach(args.buf, opts)
    end,
  })
  -- Buffers already open when setup runs (a session restored, or setup
  -- called late) get the filetype too.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_name(bufnr):match("%.vox$") then
      vim.api.nvim_buf_call(bufnr, function()
        vim.cmd("setlocal filetype=vox")
      end)
    end
  end
end

return M
