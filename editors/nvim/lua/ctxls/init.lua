-- ctxls for Neovim: starts (or attaches) `ctxls serve` through vim.lsp.start for the file
-- types it knows, and offers the context window at the cursor, skeletons, symbol reads and
-- call sites as commands. Nothing happens until setup() is called.
local client = require("ctxls.client")
local commands = require("ctxls.commands")

local M = {}

M.defaults = {
  cmd = { "ctxls", "serve" },
  -- Structural support (grammars/<lang>/), then the generic fallback's languages
  -- (grammars/_generic/languages.toml), which answer with `mode: fallback`.
  filetypes = {
    "python", "typescript", "typescriptreact", "javascript", "javascriptreact",
    "go", "rust", "java", "ruby",
    "c", "cpp", "cs", "kotlin", "scala", "swift", "php", "dart", "groovy", "objc", "zig",
    "solidity", "lua", "sh", "bash", "perl", "r", "julia", "elixir", "nim", "haskell",
    "ocaml", "erlang", "clojure",
  },
  root_markers = { ".git" },
  ceiling = nil, -- tokens; nil: the policy's first-turn ceiling, else the server's 24000
  intent = "edit", -- edit | rename | state | review
  init_options = {}, -- the server's initializationOptions (docs/protocol.md, Options)
  split = "below", -- where answers open: below | above | right | left
  size = nil, -- height (or width for left/right) of that split
  virtual_text = false, -- show the last window's token count at the end of the cursor line
}

M.config = vim.deepcopy(M.defaults)

--- The workspace root for a buffer: the enclosing repository, else the file's folder.
function M.root_dir(bufnr)
  local root = vim.fs.root(bufnr, M.config.root_markers)
  if root then
    return root
  end
  return vim.fs.dirname(vim.api.nvim_buf_get_name(bufnr))
end

--- Starts `ctxls serve` for the buffer's root, or attaches the one already running there.
---@return integer? client_id
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  -- only files on disk: the server names files by workspace path (no fugitive://, no help)
  if vim.bo[bufnr].buftype ~= "" or name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  local cmd = M.config.cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    vim.notify_once(("ctxls: %s is not executable; set `cmd` in setup (:checkhealth ctxls)")
      :format(cmd[1]), vim.log.levels.ERROR)
    return nil
  end
  local init = M.config.init_options
  return vim.lsp.start({
    name = client.name,
    cmd = cmd,
    root_dir = M.root_dir(bufnr),
    -- an empty table would go out as a JSON list
    init_options = (init and next(init)) and init or nil,
  }, { bufnr = bufnr })
end

--- The token count of the last window, for a statusline: "ctx 2841/3000", or "".
function M.statusline()
  local last = commands.last_window
  if not last then
    return ""
  end
  return ("ctx %d/%d"):format(last.tokenCount, last.ceiling)
end

--- Waits (blocking) until the buffer's server is up and its index is built; the status,
--- or nil on timeout. For scripts and tests: the commands themselves never block.
function M.wait_ready(bufnr, timeout_ms)
  return client.wait_ready(bufnr or vim.api.nvim_get_current_buf(), timeout_ms)
end

local function create_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("CtxlsWindow", function(o)
    commands.window(o.args)
  end, { nargs = "*", desc = "ctxls: the context window for the declaration at the cursor" })
  cmd("CtxlsPage", function(o)
    commands.page(o.args)
  end, { nargs = "*", desc = "ctxls: the context window as a page in the browser" })
  cmd("CtxlsSkeleton", commands.skeleton,
    { nargs = 0, desc = "ctxls: this file's skeleton, the declaration at the cursor in full" })
  cmd("CtxlsRead", function(o)
    commands.read(o.args)
  end, { nargs = 1, complete = commands.complete_symbols, desc = "ctxls: one declaration" })
  cmd("CtxlsRefs", commands.refs,
    { nargs = 0, desc = "ctxls: call sites of the declaration at the cursor (quickfix)" })
  cmd("CtxlsStatus", commands.status, { nargs = 0, desc = "ctxls: the index's state" })
end

--- Sets the options (merged over the defaults) and attaches to buffers of the file types,
--- those open now and those opened later.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  -- lists replace, not merge by index: `filetypes = {"python"}` means only python
  for _, key in ipairs({ "cmd", "filetypes", "root_markers" }) do
    if opts and opts[key] then
      M.config[key] = opts[key]
    end
  end
  commands.config = M.config
  local group = vim.api.nvim_create_augroup("ctxls", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  create_commands()
  -- setup() may run after files were opened (lazy loading): attach those too
  local wanted = {}
  for _, ft in ipairs(M.config.filetypes) do
    wanted[ft] = true
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and wanted[vim.bo[buf].filetype] then
      M.attach(buf)
    end
  end
end

return M
