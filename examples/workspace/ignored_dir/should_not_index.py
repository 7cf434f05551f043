def should_not_index():
    return "this file is excluded by the workspace .gitignore"
