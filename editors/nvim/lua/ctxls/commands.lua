-- The user commands: each builds its params from the cursor, asks our client, and shows the
-- answer (a scratch split, the quickfix list, a page in the browser).
local client = require("ctxls.client")
local render = require("ctxls.render")

local M = {}

--- Set by init.setup: the merged options.
M.config = {}

--- The last window built: what the statusline component shows.
M.last_window = nil

local ns = vim.api.nvim_create_namespace("ctxls")

-- A scratch window of this kind in the current tab, reused so repeated commands replace
-- the answer instead of stacking splits.
local function find_scratch(kind)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.b[buf].ctxls_kind == kind then
      return buf, win
    end
  end
end

--- Shows `lines` in a read-only scratch split (nofile, wiped when hidden, markdown).
---@return integer buf
function M.show(kind, name, lines)
  local buf, win = find_scratch(kind)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    vim.b[buf].ctxls_kind = kind
    vim.bo[buf].filetype = "markdown"
    local opts = { split = M.config.split or "below", win = -1 }
    if M.config.size then
      local vertical = opts.split == "left" or opts.split == "right"
      opts[vertical and "width" or "height"] = M.config.size
    end
    win = vim.api.nvim_open_win(buf, true, opts)
    -- the text is code with its own line numbers: no wrapping, folding or concealed fences
    for opt, value in pairs({ wrap = false, foldenable = false, spell = false, conceallevel = 0 }) do
      vim.api.nvim_set_option_value(opt, value, { win = win, scope = "local" })
    end
  else
    vim.api.nvim_set_current_win(win)
  end
  -- a second window on the same target in another tab holds the name: keep the old one
  pcall(vim.api.nvim_buf_set_name, buf, ("ctxls://%s/%s"):format(kind, name))
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  return buf
end

local function set_virtual_text(bufnr, row, result)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, ns, 0, -1)
  if not M.config.virtual_text then
    return
  end
  local text = ("ctx %d/%d tokens"):format(result.tokenCount, result.ceiling)
  -- the answer is asynchronous: lines may have gone meanwhile
  row = math.min(row, vim.api.nvim_buf_line_count(bufnr) - 1)
  vim.api.nvim_buf_set_extmark(bufnr, ns, row, 0, {
    virt_text = { { text, "Comment" } }, virt_text_pos = "eol", hl_mode = "combine",
  })
end

--- ctx/construct (and ctx/page) params for the declaration at the cursor.
local function window_params(win, c, task)
  local pos = client.position_params(win, c)
  return {
    textDocument = pos.textDocument,
    target = { position = pos.position },
    task = task,
    intent = M.config.intent,
    ceiling = M.config.ceiling,
  }
end

-- Runs `fn(task)` with the command's argument, else with what vim.ui.input answers (an
-- empty answer is a window without a task; <Esc> gives nil and cancels).
local function with_task(args, command, fn)
  if args ~= "" then
    return fn(args)
  end
  vim.ui.input({ prompt = "ctxls task: " }, function(input)
    if input == nil then
      client.done(command, false, { error = "cancelled" })
      return
    end
    fn(input)
  end)
end

function M.window(args)
  local bufnr, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  local c = client.require(bufnr)
  if not c then
    return client.done("window", false, { error = "not attached" })
  end
  -- read the cursor before asking: an input prompt may move focus
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1
  local params = window_params(win, c, "")
  with_task(args, "window", function(task)
    params.task = task
    client.request("window", bufnr, "ctx/construct", params, function(result)
      M.last_window = { tokenCount = result.tokenCount, ceiling = result.ceiling,
                        target = result.target, complete = result.complete }
      set_virtual_text(bufnr, row, result)
      local buf = M.show("window", result.target, render.window(result))
      vim.b[buf].ctxls_window = M.last_window
      if result.complete == false then
        vim.notify("ctxls: the window may be incomplete; see its notes", vim.log.levels.WARN)
      end
    end)
  end)
end

local page_dir

-- A file under the system's temp folder, not nvim's tempname(): nvim deletes that folder
-- when it exits, and the browser vim.ui.open started may not have read the page by then.
-- One folder a session, one file a target (a second page of it replaces the first).
local function page_path(target)
  local template = vim.fs.joinpath(vim.uv.os_tmpdir(), "ctxls-XXXXXX")
  page_dir = page_dir or assert(vim.uv.fs_mkdtemp(template))
  return vim.fs.joinpath(page_dir, (target:gsub("[^%w._-]+", "_")) .. ".html")
end

function M.page(args)
  local bufnr, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  local c = client.require(bufnr)
  if not c then
    return client.done("page", false, { error = "not attached" })
  end
  local params = window_params(win, c, "")
  with_task(args, "page", function(task)
    params.task = task
    client.request("page", bufnr, "ctx/page", params, function(result)
      local path = page_path(result.target)
      local f = assert(io.open(path, "w"))
      f:write(result.html)
      f:close()
      M.last_page = path
      local msg = ("ctxls: page for %s (%d of %d tokens): %s"):format(
        result.target, result.tokenCount, result.ceiling, path)
      -- no UI (headless, tests): nothing to open a browser for, the path is the answer
      if #vim.api.nvim_list_uis() > 0 then
        local _, err = vim.ui.open(path)
        if err then
          msg = msg .. " (could not open it: " .. err .. ")"
        end
      end
      vim.notify(msg, vim.log.levels.INFO)
    end)
  end)
end

function M.skeleton()
  local bufnr, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  local c = client.require(bufnr)
  if not c then
    return client.done("skeleton", false, { error = "not attached" })
  end
  local pos = client.position_params(win, c)
  local params = { textDocument = pos.textDocument, target = { position = pos.position } }
  client.request("skeleton", bufnr, "ctx/skeleton", params, function(result)
    M.show("skeleton", result.path, render.skeleton(result))
  end)
end

function M.read(name)
  local bufnr = vim.api.nvim_get_current_buf()
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), name = name }
  client.request("read", bufnr, "ctx/readSymbol", params, function(result)
    M.show("symbol", result.path .. "::" .. result.symbol, render.symbol(result))
  end)
end

-- The innermost declaration whose lines hold `row` (0-based), from documentSymbol: its
-- qualified name and 1-based line, as ctx/references takes them.
local function enclosing_declaration(bufnr, row)
  local symbols = client.request_sync(bufnr, "textDocument/documentSymbol",
    { textDocument = vim.lsp.util.make_text_document_params(bufnr) }, 2000)
  local best
  local function walk(list, prefix)
    for _, s in ipairs(list or {}) do
      local r = s.range
      if r and r.start.line <= row and row <= r["end"].line then
        local name = prefix and (prefix .. "." .. s.name) or s.name
        best = { name = name, line = (s.selectionRange or r).start.line + 1 }
        walk(s.children, name)
      end
    end
  end
  walk(symbols, nil)
  return best
end

function M.refs()
  local bufnr, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  local c = client.require(bufnr)
  if not c then
    return client.done("refs", false, { error = "not attached" })
  end
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1
  local function show(result, cl)
    local items = render.references(result, cl.offset_encoding)
    vim.fn.setqflist({}, " ", { title = render.references_title(result), items = items })
    vim.cmd("botright copen")
    if not result.complete then
      local why = table.concat(result.notes or {}, "; ")
      vim.notify("ctxls: the list may be incomplete: " .. why, vim.log.levels.WARN)
    end
  end
  -- The server answers for a call or a declaration's name at the position; anywhere else in
  -- a body means the declaration around the cursor, as for :CtxlsWindow.
  local function around(err)
    if err.code ~= -32001 then
      return false
    end
    local decl = enclosing_declaration(bufnr, row)
    if not decl then
      return false
    end
    client.request("refs", bufnr, "ctx/references", {
      textDocument = vim.lsp.util.make_text_document_params(bufnr),
      name = decl.name,
      line = decl.line,
    }, show)
    return true
  end
  client.request("refs", bufnr, "ctx/references", client.position_params(win, c), show, around)
end

function M.status()
  local bufnr = vim.api.nvim_get_current_buf()
  client.request("status", bufnr, "ctx/status", vim.empty_dict(), function(r)
    local state = r.scanning and "scanning" or "ready"
    vim.notify(("ctxls: %s, %d of %d files indexed (%d from the cache), %d skipped"):format(
      state, r.indexed, r.files, r.fromCache or 0, r.skippedCount or #(r.skipped or {})),
      vim.log.levels.INFO)
  end)
end

-- Qualified names of a documentSymbol tree (`Cart.subtotal`), what ctx/readSymbol takes.
local function qualified(symbols, prefix, out)
  for _, s in ipairs(symbols or {}) do
    local name = prefix and (prefix .. "." .. s.name) or s.name
    out[#out + 1] = name
    qualified(s.children, name, out)
  end
  return out
end

--- Completion for :CtxlsRead: the current file's declarations, from textDocument/documentSymbol.
function M.complete_symbols(arglead)
  local bufnr = vim.api.nvim_get_current_buf()
  local symbols = client.request_sync(bufnr, "textDocument/documentSymbol",
    { textDocument = vim.lsp.util.make_text_document_params(bufnr) }, 2000)
  local names = qualified(symbols, nil, {})
  return vim.tbl_filter(function(n)
    return vim.startswith(n, arglead)
  end, names)
end

return M
