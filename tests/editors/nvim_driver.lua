-- Drives the ctxls plugin inside a real Neovim for tests/editors/test_nvim.py: runs the
-- commands as a user would and writes what Neovim then shows (buffer lines, options, the
-- quickfix list, messages, the statusline, the health report) to a JSON file.
--
-- The plan comes from the JSON file named by $CTXLS_NVIM_PLAN. mode "headless" runs every
-- step and quits; mode "tui" builds one window for a screen capture and stays open.
local plan = vim.json.decode(table.concat(vim.fn.readfile(vim.env.CTXLS_NVIM_PLAN), "\n"))
local out = { errors = {} }
local ctxls = require("ctxls")

local function write()
  vim.fn.writefile({ vim.json.encode(out) }, plan.out)
end

local finished = 0
vim.api.nvim_create_autocmd("User", {
  pattern = "CtxlsDone",
  callback = function(args)
    finished = finished + 1
    out.events = out.events or {}
    table.insert(out.events, { command = args.data.command, ok = args.data.ok,
                               error = args.data.error })
  end,
})

--- Runs an Ex command and waits (polling, bounded) for the CtxlsDone event it causes.
local function run(cmd)
  local before = finished
  vim.cmd(cmd)
  assert(vim.wait(plan.timeout_ms, function() return finished > before end, 10),
    "no answer within the timeout: " .. cmd)
  return out.events[#out.events]
end

local function buffer_state(buf)
  return {
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    name = vim.api.nvim_buf_get_name(buf),
    buf = buf,
    buftype = vim.bo[buf].buftype,
    bufhidden = vim.bo[buf].bufhidden,
    filetype = vim.bo[buf].filetype,
    modifiable = vim.bo[buf].modifiable,
    windows = #vim.api.nvim_tabpage_list_wins(0),
  }
end

local function last_params()
  return require("ctxls.client").last_request.params
end

local function step(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    table.insert(out.errors, name .. ": " .. tostring(err))
  end
end

local source

local function open_source()
  ctxls.setup(plan.setup)
  vim.cmd.edit(vim.fn.fnameescape(plan.file))
  source = vim.api.nvim_get_current_buf()
  out.status = ctxls.wait_ready(source, plan.timeout_ms)
  assert(out.status, "the server did not get ready")
  local c = require("ctxls.client").get(source)
  out.client = { name = c.name, offset_encoding = c.offset_encoding, root_dir = c.root_dir,
                 others = #vim.lsp.get_clients({ bufnr = source }) - 1 }
end

local function window_step(key, cmd)
  local ev = run(cmd)
  assert(ev.ok, "the window failed: " .. tostring(ev.error))
  local state = buffer_state(vim.api.nvim_get_current_buf())
  state.params = last_params()
  state.statusline = ctxls.statusline()
  state.statusline_eval = vim.api.nvim_eval_statusline(
    "%{v:lua.require'ctxls'.statusline()}", {}).str
  state.extmarks = vim.api.nvim_buf_get_extmarks(source, -1, 0, -1, { details = true })
  out[key] = state
end

local function to_source()
  vim.api.nvim_set_current_win(vim.fn.bufwinid(source))
end

local function headless()
  step("open", open_source)
  if not source then
    return
  end
  step("window", function()
    vim.api.nvim_win_set_cursor(0, plan.cursor)
    window_step("window1", "CtxlsWindow " .. plan.task)
  end)
  step("edit", function()
    to_source()
    -- an unsaved edit inside the body: the server must get it as didChange
    vim.api.nvim_buf_set_lines(source, plan.insert_at, plan.insert_at, false, { plan.insert })
    out.edited_text = table.concat(vim.api.nvim_buf_get_lines(source, 0, -1, false), "\n") .. "\n"
    out.edited_version = vim.lsp.util.buf_versions[source]
    local prompts = {}
    vim.ui.input = function(opts, on_confirm)
      prompts[#prompts + 1] = opts.prompt
      on_confirm("")
    end
    window_step("window2", "CtxlsWindow")
    out.window2.prompts = prompts
    out.modified = vim.bo[source].modified
  end)
  step("refs", function()
    to_source()
    vim.api.nvim_win_set_cursor(0, plan.cursor)
    assert(run("CtxlsRefs").ok, "refs failed")
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    out.refs = { params = last_params(), title = qf.title, items = {} }
    for _, it in ipairs(qf.items) do
      table.insert(out.refs.items, { filename = vim.api.nvim_buf_get_name(it.bufnr),
        lnum = it.lnum, col = it.col, text = it.text, type = it.type })
    end
    out.refs.qf_open = vim.bo[vim.api.nvim_get_current_buf()].buftype == "quickfix"
  end)
  step("refs at the name", function()
    to_source()
    vim.api.nvim_win_set_cursor(0, plan.name_cursor)
    assert(run("CtxlsRefs").ok, "refs at the name failed")
    out.refs_name = { params = last_params(), count = #vim.fn.getqflist() }
  end)
  step("read", function()
    to_source()
    vim.cmd("messages clear")
    out.read_error = vim.deepcopy(run("CtxlsRead " .. plan.misspelled))
    out.read_error.messages = vim.api.nvim_exec2("messages", { output = true }).output
    to_source()
    out.completion = vim.fn.getcompletion("CtxlsRead " .. plan.complete_prefix, "cmdline")
    local ev = run("CtxlsRead " .. plan.symbol)
    assert(ev.ok, "read failed: " .. tostring(ev.error))
    out.read = buffer_state(vim.api.nvim_get_current_buf())
    out.read.params = last_params()
  end)
  step("skeleton", function()
    vim.cmd.edit(vim.fn.fnameescape(plan.unicode_file))
    local buf = vim.api.nvim_get_current_buf()
    assert(vim.wait(plan.timeout_ms, function()
      return require("ctxls.client").get(buf) ~= nil end, 10), "no client on the second file")
    vim.api.nvim_win_set_cursor(0, plan.unicode_cursor)
    local ev = run("CtxlsSkeleton")
    assert(ev.ok, "skeleton failed: " .. tostring(ev.error))
    out.skeleton = buffer_state(vim.api.nvim_get_current_buf())
    out.skeleton.params = last_params()
    out.skeleton.line_text = vim.fn.getbufline(buf, plan.unicode_cursor[1])[1]
  end)
  step("page", function()
    if not plan.page then
      return
    end
    to_source()
    vim.api.nvim_win_set_cursor(0, plan.name_cursor)
    vim.cmd("messages clear")
    local ev = run("CtxlsPage " .. plan.task)
    assert(ev.ok, "page failed: " .. tostring(ev.error))
    out.page = { params = last_params(), path = require("ctxls.commands").last_page,
                 messages = vim.api.nvim_exec2("messages", { output = true }).output }
  end)
  step("status", function()
    to_source()
    vim.cmd("messages clear")
    assert(run("CtxlsStatus").ok, "status failed")
    out.status_message = vim.api.nvim_exec2("messages", { output = true }).output
  end)
  step("health", function()
    to_source()
    vim.cmd("checkhealth ctxls")
    out.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    vim.cmd("tabclose")
  end)
  out.all_messages = vim.api.nvim_exec2("messages", { output = true }).output
end

local function tui()
  step("open", open_source)
  step("window", function()
    vim.o.statusline = "%f %m%=%{v:lua.require'ctxls'.statusline()} %l:%c "
    vim.api.nvim_win_set_cursor(0, plan.cursor)
    window_step("window1", "CtxlsWindow " .. plan.task)
  end)
  write()
end

if plan.mode == "tui" then
  -- after startup, so the UI is attached and draws what the commands open
  vim.schedule(tui)
else
  headless()
  write()
  vim.cmd("qall!")
end
